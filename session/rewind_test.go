package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/windows"
)

// messagesOf is a recorded request's messages array as sent.
func messagesOf(t *testing.T, r fakeai.Request) []byte {
	t.Helper()
	var b struct{ Messages json.RawMessage }
	if err := json.Unmarshal(r.Body, &b); err != nil {
		t.Fatal(err)
	}
	return b.Messages
}

// cached is docs/protocol.md §3's cached part of request i: the longest common
// prefix of its messages with any earlier request's.
func cached(t *testing.T, reqs []fakeai.Request, i int) (size, hit int) {
	cur := messagesOf(t, reqs[i])
	for _, r := range reqs[:i] {
		prev, n := messagesOf(t, r), 0
		for n < len(cur) && n < len(prev) && cur[n] == prev[n] {
			n++
		}
		hit = max(hit, n)
	}
	return len(cur), hit
}

// What a rewind costs against its alternatives, by §3's measure (uncached
// + 0.1 × cached bytes of the next request): rewinding to question 3 and
// asking it again edited, asking the edit as a fourth question instead,
// and a fresh session with the edited question alone. The system prompt
// is SYSTEM_PROMPT.md's. Run with -v for the figures.
func TestRewindCostAgainstAFreshStart(t *testing.T) {
	prompt, err := os.ReadFile(filepath.Join("..", "SYSTEM_PROMPT.md"))
	if err != nil {
		t.Skip("SYSTEM_PROMPT.md not found")
	}
	var code strings.Builder
	for i := range 60 {
		fmt.Fprintf(&code, "func F%d(a, b int) int { return a*%d + b }\n", i, i)
	}
	srv := fakeai.New(t,
		fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"calc.go"}`)},
		fakeai.Reply{Content: "I read calc.go: sixty small functions."},
		fakeai.Reply{Content: call("file_1", "edit", `{"old_text":"a*7 + b","new_text":"a*7 - b"}`)},
		fakeai.Reply{Content: "F7 now subtracts."},
		fakeai.Reply{Content: call("launcher", "open", `{"app":"bash"}`) + call("bash_1", "run", `{"command":"ls -l"}`)},
		fakeai.Reply{Content: "One file: calc.go."},
		fakeai.Reply{Content: "ok (rewound)"},
		fakeai.Reply{Content: "ok (a fourth question)"},
		fakeai.Reply{Content: "ok (fresh)"},
	)
	f, work := newFactory(t, srv)
	f.cfg.Agent.BasePrompt = string(prompt)
	if err := os.WriteFile(filepath.Join(work, "calc.go"), []byte("package calc\n\n"+code.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := f.New(ctx, Options{Workdir: work})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, q := range []string{"Read calc.go", "Make F7 subtract b", "List the files with their sizes"} {
		if _, err := asked(ctx, s, q); err != nil {
			t.Fatal(err)
		}
	}
	edited := "List the files with their sizes in bytes, largest first"
	res, err := s.Rewind(ctx, 3, false, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(res.Branch.Close)
	if res.Question != "List the files with their sizes" {
		t.Errorf("the question put back: %q", res.Question)
	}
	row := func(what string, run func() error) (int, int) {
		n := len(srv.Requests())
		if err := run(); err != nil {
			t.Fatal(err)
		}
		size, hit := cached(t, srv.Requests(), n)
		cost := float64(size-hit) + 0.1*float64(hit)
		t.Logf("%-44s %6d bytes, %6d cached (%5.1f%%), cost %8.0f byte-equivalents", what, size, hit, 100*float64(hit)/float64(size), cost)
		return size, hit
	}
	n := len(srv.Requests())
	row("rewind to question 3, asked again edited", func() error { _, err := asked(ctx, res.Branch, edited); return err })
	// The history before question 3 goes as question 3's first request
	// sent it, byte for byte; the reopened windows are shown afresh in the
	// new question's message, as after /fork or --resume.
	var now, then []json.RawMessage
	reqs := srv.Requests()
	json.Unmarshal(messagesOf(t, reqs[n]), &now)
	json.Unmarshal(messagesOf(t, reqs[4]), &then)
	if len(now) != len(then) {
		t.Fatalf("%d messages after the rewind, %d in question 3's first request", len(now), len(then))
	}
	for i := range now[:len(now)-1] {
		if string(now[i]) != string(then[i]) {
			t.Errorf("message %d differs from question 3's first request", i)
		}
	}
	row("no rewind: the edit as question 4", func() error { _, err := asked(ctx, s, "No: "+edited); return err })
	fresh, err := f.New(ctx, Options{Workdir: work})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fresh.Close)
	row("a fresh session (without turns 1 and 2)", func() error { _, err := asked(ctx, fresh, edited); return err })
}

// The three choices: files only leaves the conversation; conversation
// only leaves the files (and forgets their changes, so a later rewind of
// files does not reach past what the model knows); a question the session
// does not have, or a turn running, is refused.
func TestRewindChoices(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"a.txt"}`) + call("file_1", "edit", `{"old_text":"a0","new_text":"a1"}`)},
		fakeai.Reply{Content: "one"},
		fakeai.Reply{Content: call("file_1", "edit", `{"old_text":"a1","new_text":"a2"}`)},
		fakeai.Reply{Content: "two"},
	)
	f, work := newFactory(t, srv)
	path := filepath.Join(work, "a.txt")
	os.WriteFile(path, []byte("a0\n"), 0o644)
	read := func() string { b, _ := os.ReadFile(path); return string(b) }
	ctx := context.Background()
	s := askedIn(t, f, Options{Workdir: work, Journal: windows.NewUndoJournal()}, "first", "second")
	if _, err := s.Rewind(ctx, 3, true, true); !errors.Is(err, ErrNoTurn) {
		t.Errorf("rewind to a question not asked: %v", err)
	}
	res, err := s.Rewind(ctx, 2, true, false)
	if err != nil || res.Branch != nil || res.Files == nil || len(res.Files.Restored) != 1 || read() != "a1\n" {
		t.Fatalf("files only: %+v %v, a.txt %q", res, err, read())
	}
	if n := len(s.Info().Turns); n != 2 {
		t.Errorf("files only changed the conversation: %d turns", n)
	}
	res, err = s.Rewind(ctx, 1, false, true)
	if err != nil || res.Branch == nil || res.Files != nil || read() != "a1\n" {
		t.Fatalf("conversation only: %+v %v, a.txt %q", res, err, read())
	}
	t.Cleanup(res.Branch.Close)
	if n := len(res.Branch.Info().Turns); n != 0 {
		t.Errorf("the branch holds %d turns", n)
	}
	if res, err := s.Rewind(ctx, 1, true, false); err != nil || res.Files != nil || res.FilesNote == "" || read() != "a1\n" {
		t.Errorf("files after a conversation-only rewind: %+v %v, a.txt %q", res, err, read())
	}
}

// A turn wrote d/e.txt and made d/new.txt; a later command replaced d
// with a link to a folder outside holding files of the same content.
// Rewinding to the first turn, or /undo, writes and removes nothing
// outside: each path is refused and named, the outside files untouched.
func TestRewindThroughPlantedLink(t *testing.T) {
	for _, how := range []string{"rewind", "undo"} {
		t.Run(how, func(t *testing.T) {
			outside := t.TempDir()
			srv := fakeai.New(t,
				fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"d/e.txt"}`) +
					call("file_1", "edit", `{"old_text":"e0","new_text":"e1"}`) +
					call("launcher", "open", `{"app":"file","target":"d/new.txt"}`) +
					call("file_2", "write", `{"content":"n1\n"}`)},
				fakeai.Reply{Content: "one"},
				fakeai.Reply{Content: call("launcher", "open", `{"app":"bash"}`) +
					call("bash_1", "run", `{"command":"mv d d.old && ln -s `+outside+` d"}`)},
				fakeai.Reply{Content: "two"},
			)
			f, work := newFactory(t, srv)
			if err := os.MkdirAll(filepath.Join(work, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(work, "d/e.txt"), []byte("e0\n"), 0o644)
			// The outside files are what the turn left, byte for byte.
			os.WriteFile(filepath.Join(outside, "e.txt"), []byte("e1\n"), 0o644)
			os.WriteFile(filepath.Join(outside, "new.txt"), []byte("n1\n"), 0o644)
			ctx := context.Background()
			j := windows.NewUndoJournal()
			s := askedIn(t, f, Options{Workdir: work, Journal: j, Mode: windows.ModeYes}, "first", "second")
			if fi, err := os.Lstat(filepath.Join(work, "d")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the command did not plant the link: %v", err)
			}
			var u windows.UndoResult
			if how == "rewind" {
				res, err := s.Rewind(ctx, 1, true, false)
				if err != nil || res.Files == nil {
					t.Fatalf("rewind: %+v %v", res, err)
				}
				u = *res.Files
			} else {
				// Back to the first turn, one /undo at a time.
				for {
					one, err := j.Undo()
					if err != nil {
						break
					}
					u.Failed = append(u.Failed, one.Failed...)
					u.Restored = append(u.Restored, one.Restored...)
					u.Removed = append(u.Removed, one.Removed...)
				}
			}
			for name, want := range map[string]string{"e.txt": "e1\n", "new.txt": "n1\n"} {
				if b, err := os.ReadFile(filepath.Join(outside, name)); err != nil || string(b) != want {
					t.Errorf("outside %s = %q, %v: the %s reached through the link", name, b, err, how)
				}
			}
			failed := strings.Join(u.Failed, "\n")
			for _, name := range []string{"d/e.txt", "d/new.txt"} {
				if !strings.Contains(failed, filepath.Join(work, name)+": refused: its folder ") || !strings.Contains(failed, "is now a link (to "+outside+")") {
					t.Errorf("%s not refused and named: %+v", name, u)
				}
			}
			if len(u.Restored)+len(u.Removed) != 0 {
				t.Errorf("%s put something back through the link: %+v", how, u)
			}
		})
	}
}
