package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// latest returns the latest rendering of window id in a request's
// messages, read in order, or "" when it has none.
func latest(req fakeai.Request, id string) string {
	all := ""
	for _, m := range req.Messages {
		all += m.Content + "\n"
	}
	i := strings.LastIndex(all, `<window id="`+id+`"`)
	if i < 0 {
		return ""
	}
	rest := all[i:]
	return rest[:strings.Index(rest, "</window>")+len("</window>")]
}

// isPrefix reports whether prev's messages open cur's, byte for byte.
func isPrefix(prev, cur fakeai.Request) bool {
	if len(cur.Messages) < len(prev.Messages) {
		return false
	}
	for j := range prev.Messages {
		if prev.Messages[j] != cur.Messages[j] {
			return false
		}
	}
	return true
}

// The 50-step session's requests each extend the previous one, except at
// the rebases the agent counted.
func TestPrefixStableExceptAtRebases(t *testing.T) {
	s := fiftySteps()
	dir := economyWorkspace(t, s.files)
	srv := fakeai.New(t)
	for _, r := range s.replies {
		srv.Push(fakeai.Reply{Content: r})
	}
	a, _ := newAgentIn(t, srv, false, dir)
	a.cfg.MaxSteps = 60
	if _, err := a.Run(context.Background(), s.question); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	breaks := 0
	for i := 1; i < len(reqs); i++ {
		if !isPrefix(reqs[i-1], reqs[i]) {
			breaks++
		}
	}
	if rebases := a.Stats().Rebases; breaks != rebases || rebases == 0 {
		t.Errorf("%d prefix breaks, %d rebases: want equal and some", breaks, rebases)
	}
}

// A file changed on disk behind its window is shown anew in the next
// request; a closed window is rendered closed and never as open again.
func TestChangedBehindAndClosedWindows(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: openFile("notes.txt")},
		fakeai.Reply{Content: fakeai.ToolCall(call("file_1", "close", nil))},
		fakeai.Reply{Content: "done"},
	)
	a, dir, _ := newAgent(t, srv, false)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("old line\n"), 0o644)
	if _, err := a.Run(context.Background(), "look"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("NEW LINE written behind aci's back\n"), 0o644)
	srv.Push(fakeai.Reply{Content: openFile("notes.txt")}, fakeai.Reply{Content: "ok"})
	reqs := srv.Requests()
	if w := latest(reqs[1], "file_1"); !strings.Contains(w, "old line") {
		t.Fatalf("the opened file is not shown:\n%s", w)
	}
	if w := latest(reqs[2], "file_1"); w != `<window id="file_1" closed="true"></window>` {
		t.Errorf("closed window's latest rendering:\n%s", w)
	}
	if _, err := a.Run(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	reqs = srv.Requests()
	if w := latest(reqs[4], "file_2"); !strings.Contains(w, "NEW LINE") {
		t.Errorf("the reopened file does not show its new content:\n%s", w)
	}
	if w := latest(reqs[4], "file_1"); !strings.Contains(w, `closed="true"`) {
		t.Errorf("file_1 shown as open again:\n%s", w)
	}
}

// An edit behind an open window: the next request's latest rendering of it
// is the changed region with the new text.
func TestEditBehindWindowShowsChange(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: openFile("calc.txt")},
		fakeai.Reply{Content: "seen"},
		fakeai.Reply{Content: "seen again"},
	)
	a, dir, _ := newAgent(t, srv, false)
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		b.WriteString("line " + strings.Repeat("x", i%7) + "\n")
	}
	path := filepath.Join(dir, "calc.txt")
	os.WriteFile(path, []byte(b.String()), 0o644)
	a.Run(context.Background(), "open it")
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), "line xxx\n", "line CHANGED\nline ADDED\n", 1)), 0o644)
	a.Run(context.Background(), "and now?")
	w := latest(srv.Requests()[2], "file_1")
	if !strings.Contains(w, `update="changes"`) || !strings.Contains(w, "3\tline CHANGED") || !strings.Contains(w, "lines below moved by +1") {
		t.Errorf("latest rendering after the change:\n%s", w)
	}
}

// Two long outputs in one batch both reach the model, also when a
// compression follows at once.
func TestTwoLongOutputsSurviveCompression(t *testing.T) {
	run := func(word string) fakeai.Call {
		return call("bash_1", "run", map[string]any{"command": "seq 1 400 | sed s/^/" + word + "/"})
	}
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"})), PromptTokens: 10},
		fakeai.Reply{Content: fakeai.ToolCall(run("first"), run("second")), PromptTokens: 5000},
		fakeai.Reply{Content: "SUMMARY", PromptTokens: 10},
		fakeai.Reply{Content: "done"},
	)
	a, _, _ := newAgent(t, srv, false)
	a.conv.cfg.CompressTokens = 1000 // compress right after the batch
	if _, err := a.Run(context.Background(), "run both"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if len(reqs) != 4 || !strings.Contains(last.Messages[0].Content, "SUMMARY") || !mentionsAll(last, "first400", "second400") {
		t.Errorf("after the compression the model lacks an output")
	}
}

func mentionsAll(req fakeai.Request, words ...string) bool {
	all := ""
	for _, m := range req.Messages {
		all += m.Content
	}
	for _, w := range words {
		if !strings.Contains(all, w) {
			return false
		}
	}
	return true
}

// A resumed session keeps the renderings of its history byte for byte,
// shows reopened windows whole and the ones that could not be reopened as
// closed.
func TestResumeWithRenderings(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: openFile("kept.txt") + openFile("gone.txt")},
		fakeai.Reply{Content: "first done"},
	)
	a, dir, _ := newAgent(t, srv, false)
	os.WriteFile(filepath.Join(dir, "kept.txt"), []byte("kept\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gone.txt"), []byte("gone\n"), 0o644)
	sessions := t.TempDir()
	tr, err := newTestLog(sessions, dir, "m", "sk-test")
	if err != nil {
		t.Fatal(err)
	}
	a.SetTranscript(tr.File)
	if _, err := a.Run(context.Background(), "open both"); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	os.Remove(filepath.Join(dir, "gone.txt"))
	before := srv.Requests()[1]

	s, err := LatestSession(sessions, dir)
	if err != nil {
		t.Fatal(err)
	}
	srv.Push(fakeai.Reply{Content: "resumed"})
	b, _ := newAgentIn(t, srv, false, dir)
	if got := b.Resume(context.Background(), s); len(got) != 1 || got[0] != "file_1" {
		t.Fatalf("reopened %v, want file_1", got)
	}
	if _, err := b.Run(context.Background(), "go on"); err != nil {
		t.Fatal(err)
	}
	// The history comes back as it was, renderings included, unless the
	// agent chose to rebase it (then only the renderings may differ).
	after := srv.Requests()[2]
	for i := 1; i < len(before.Messages); i++ {
		same := before.Messages[i] == after.Messages[i]
		if !same && (b.Stats().Rebases == 0 || !strings.HasPrefix(before.Messages[i].Content, after.Messages[i].Content)) {
			t.Errorf("message %d changed through the resume:\n%q\n%q", i, before.Messages[i].Content, after.Messages[i].Content)
		}
	}
	if w := latest(after, "file_2"); !strings.Contains(w, `closed="true"`) {
		t.Errorf("the window that could not be reopened: %s", w)
	}
	if w := latest(after, "file_1"); !strings.Contains(w, "kept") || strings.Contains(w, "closed") {
		t.Errorf("the reopened window: %s", w)
	}
}

// At a rebase a window unused for collapseAfter steps shows as one line;
// an action on it brings it back whole.
func TestCollapseAtRebaseAndBack(t *testing.T) {
	srv := fakeai.New(t)
	a, dir, _ := newAgent(t, srv, false)
	os.WriteFile(filepath.Join(dir, "idle.txt"), []byte("idle content\n"), 0o644)
	if _, res := a.wm.Open(context.Background(), "file", "idle.txt"); res.Status != "ok" {
		t.Fatal(res.Text)
	}
	v := a.conv.views
	first := entry{Role: "user", Text: "q"}
	v.refresh(&first)
	v.step = collapseAfter + 1
	history := []entry{first, {Role: "assistant", Text: "a"}, {Role: "user", Text: "results"}}
	v.rebase(history)
	last := history[2].message().Content
	if strings.Contains(history[0].message().Content, "idle content") || !strings.Contains(last, `<window id="file_1" app="file" title="idle.txt" collapsed="true">`) || strings.Contains(last, "idle content") {
		t.Fatalf("after the rebase:\n%s", last)
	}
	v.touch("file_1")
	var next entry
	v.refresh(&next)
	if got := next.message().Content; !strings.Contains(got, "idle content") || strings.Contains(got, "collapsed") {
		t.Errorf("touched window not shown whole again:\n%s", got)
	}
}

// A bash window opened and used twice in one batch shows both runs.
func TestOpenAndTwoRunsInOneBatch(t *testing.T) {
	run := func(word string) fakeai.Call {
		return call("bash_1", "run", map[string]any{"command": "seq 1 300 | sed s/^/" + word + "/"})
	}
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}), run("first"), run("second"))},
		fakeai.Reply{Content: "done"},
	)
	a, _, _ := newAgent(t, srv, false)
	if _, err := a.Run(context.Background(), "run both"); err != nil {
		t.Fatal(err)
	}
	if !mentionsAll(srv.Requests()[1], "first300", "second300", "<actions>") {
		t.Error("an output or the window's actions did not reach the model")
	}
}
