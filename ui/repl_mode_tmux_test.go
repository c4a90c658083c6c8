package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// Shift-Tab cycles default → ask → plan in the prompt; a plan turn's
// write is refused; accepting the plan switches to default, and the model,
// told so, carries it out.
func TestREPLShiftTabAndAcceptPlan(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": "plan.txt"}},
			fakeai.Call{Window: "file_1", Action: "write", Params: map[string]any{"content": "too early\n"}},
		)},
		fakeai.Reply{Content: "Plan:\n1. write plan.txt"},
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "file_1", Action: "write", Params: map[string]any{"content": "carried out\n"}},
		)},
		fakeai.Reply{Content: "carried out the plan"},
	)
	s := readyREPL(t, srv, nil)
	s.keys("BTab")
	s.waitUntil("ask in the prompt", func(scr string) bool { return lastLine(scr) == "ask ›" })
	s.keys("BTab")
	s.waitUntil("plan in the prompt", func(scr string) bool { return lastLine(scr) == "plan ›" })
	s.typeLine("make plan.txt")
	scr := s.waitFor("accept?")
	if !strings.Contains(scr, "refused in plan mode") {
		t.Errorf("the plan turn's write was not refused:\n%s", scr)
	}
	if _, err := os.Stat(filepath.Join(s.work, "plan.txt")); err == nil {
		t.Fatal("plan mode wrote the file")
	}
	s.exchange("y", "carried out the plan")
	b, err := os.ReadFile(filepath.Join(s.work, "plan.txt"))
	if err != nil || string(b) != "carried out\n" {
		t.Errorf("after accepting: %q, %v", b, err)
	}
	reqs := srv.Requests()
	if len(reqs) < 3 || !mentions(reqs[0], "permission mode plan") || !mentions(reqs[2], "accepted your plan") {
		t.Errorf("the model was not told the mode and the acceptance")
	}
	s.typeLine("/mode")
	s.waitFor("mode default (acceptEdits): only dangerous actions are asked")
	// Claude Code's names are understood where typed.
	s.typeLine("/mode plan")
	s.waitUntil("plan in the prompt", func(scr string) bool { return lastLine(scr) == "plan ›" })
	s.typeLine("/mode acceptEdits")
	s.waitUntil("default again", func(scr string) bool {
		return lastLine(scr) == "›" && strings.Count(scr, "mode default (acceptEdits): only dangerous actions are asked") == 2
	})
}

// In ask mode an edit that default mode makes without a question is
// asked: y lets it happen; a (always) covers that file for the session,
// and /permissions lists it; e accepts edits for the session (Claude
// Code's offer): the mode is default, the next file is not asked, and
// /permissions says so.
func TestREPLAskModeAsksBeforeAnEdit(t *testing.T) {
	for _, tc := range []struct {
		answer string
		asked  int    // questions, each answered with answer
		listed string // what /permissions lists then
	}{
		{"y", 3, "no rules"},
		{"a", 2, "allow file: write "},
		{"e", 1, "mode default (acceptEdits): file changes in the workspace are not asked"},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			t.Parallel()
			edit := func(win, from, to string) fakeai.Call {
				return fakeai.Call{Window: win, Action: "edit", Params: map[string]any{"old_text": from, "new_text": to}}
			}
			srv := fakeai.New(t,
				fakeai.Reply{Content: fakeai.ToolCall(
					fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": "a.txt"}},
					edit("file_1", "alpha", "beta"),
				)},
				fakeai.Reply{Content: fakeai.ToolCall(
					edit("file_1", "beta", "gamma"),
					fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": "b.txt"}},
					edit("file_2", "one", "two"),
				)},
				fakeai.Reply{Content: "edited"},
			)
			work := t.TempDir()
			os.WriteFile(filepath.Join(work, "a.txt"), []byte("alpha\n"), 0o644)
			os.WriteFile(filepath.Join(work, "b.txt"), []byte("one\n"), 0o644)
			s := startPaneIn(t, srv, work, t.TempDir(), nil, func(bin string) []string { return []string{bin, "--permission-mode", "ask"} })
			s.waitUntil("ask in the prompt", func(scr string) bool { return lastLine(scr) == "ask ›" })
			s.typeLine("edit a.txt and b.txt")
			scr := s.waitFor("allow? ›")
			if !strings.Contains(scr, "ask mode: every file change is asked") || !strings.Contains(scr, "e accept edits for this session") {
				t.Errorf("the question does not say why, or does not offer e:\n%s", scr)
			}
			if b, _ := os.ReadFile(filepath.Join(work, "a.txt")); string(b) != "alpha\n" {
				t.Fatal("the edit ran before the answer")
			}
			for i := range tc.asked {
				s.waitUntil("question "+fmt.Sprint(i+1), func(scr string) bool { return strings.Count(scr, "allow? ›") == i+1 })
				s.typeLine(tc.answer) // answers take Enter
			}
			s.waitFor("edited")
			scr = s.waitPrompt()
			if n := strings.Count(scr, "allow? ›"); n != tc.asked {
				t.Errorf("asked %d times, want %d:\n%s", n, tc.asked, scr)
			}
			a, _ := os.ReadFile(filepath.Join(work, "a.txt"))
			b, _ := os.ReadFile(filepath.Join(work, "b.txt"))
			if string(a) != "gamma\n" || string(b) != "two\n" {
				t.Errorf("after %s: a.txt %q, b.txt %q", tc.answer, a, b)
			}
			s.typeLine("/permissions")
			s.waitFor(tc.listed)
		})
	}
}

// A slash command typed at "accept plan?" runs as the command: /mode
// default leaves plan mode, and is not read as "no".
func TestREPLSlashCommandAtAcceptPlan(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "Plan:\n1. write plan.txt"})
	s := startPaneIn(t, srv, t.TempDir(), t.TempDir(), nil, func(bin string) []string { return []string{bin, "--permission-mode", "plan"} })
	s.waitUntil("plan in the prompt", func(scr string) bool { return lastLine(scr) == "plan ›" })
	s.typeLine("make plan.txt")
	s.waitFor("accept?")
	s.typeLine("/mode default")
	scr := s.waitFor("mode default (acceptEdits): only dangerous actions are asked")
	if strings.Contains(scr, "plan not accepted") {
		t.Errorf("the command was read as an answer:\n%s", scr)
	}
	s.waitUntil("default in the prompt", func(scr string) bool { return lastLine(scr) == "›" || strings.HasPrefix(lastLine(scr), "default") })
}
