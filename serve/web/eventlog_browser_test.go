package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// A past session, opened on the page of a server started after it ended,
// looks as it did live: the model's words between its actions, a failed
// command's exit code, the approval with its answer, the steered message,
// the cancelled turn's mark and the bash window's last content.
func TestPageShowsAPastSessionAsItWasLive(t *testing.T) {
	ctx := browser(t)
	workdir, sessions := t.TempDir(), t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, "keep"), 0o755)
	os.WriteFile(filepath.Join(workdir, "calc.py"), []byte("x = 1\n"), 0o644)
	ai := fakeai.New(t,
		fakeai.Reply{Content: "Checking a && b <now>.\n" + fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "echo 'a && <b>'; exit 3"}),
			call("launcher", "open", map[string]any{"app": "file", "target": "calc.py"}),
			call("file_1", "edit", map[string]any{"old_text": "x = 1", "new_text": "x = 2"}),
			call("bash_1", "run", map[string]any{"command": "rm -rf ~/keep", "uncontained": true}),
		)},
		fakeai.Reply{Content: "Done and dusted."},
		fakeai.Reply{Hang: true},
	)
	f := pageFactory(t, ai, sessions)
	ss, err := f.New(context.Background(), session.Options{Workdir: workdir})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); ss.Ask(context.Background(), "fix calc") }()
	deadline := time.Now().Add(20 * time.Second)
	for len(ss.Pending()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no approval asked")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, _, err := ss.Send("and keep it short"); err != nil {
		t.Fatal(err)
	}
	if err := ss.Decide(ss.Pending()[0], windows.Decision{Allow: true}); err != nil {
		t.Fatal(err)
	}
	<-done
	done = make(chan struct{})
	go func() { defer close(done); ss.Ask(context.Background(), "wait") }()
	ai.WaitRequests(3, 10*time.Second)
	ss.Cancel()
	<-done
	ss.Close()

	// A server started afterwards, over the same state folder.
	base, token := pageServerIn(t, f, workdir)
	w := watchPage(ctx, t)
	navigate(t, ctx, base+"/#token="+token)
	waitFor(t, ctx, "the second turn's cancel mark", `[...document.querySelectorAll('.turn[data-turn="2"] .turn-foot.error .err')].some(e => e.textContent === 'interrupted')`)
	first := `document.querySelector('.turn[data-turn="1"] .turn-body')`
	waitFor(t, ctx, "the words before the first action", first+`.firstElementChild.matches('.md') && `+first+`.firstElementChild.textContent.includes('Checking a && b <now>.')`)
	waitFor(t, ctx, "the exit code mark", `[...document.querySelectorAll('.action .act-status')].some(e => e.textContent.startsWith('✗ exit 3'))`)
	// Each action as its one description says it, as live: no window ids.
	rows := eval[string](t, ctx, `[...document.querySelectorAll('.turn[data-turn="1"] .action summary')].map(s => s.textContent).join('|')`)
	for _, want := range []string{"open calc.py", "edit calc.py", "run echo 'a && <b>'; exit 3"} {
		if !strings.Contains(rows, want) {
			t.Errorf("the loaded actions lack %q: %s", want, rows)
		}
	}
	if strings.Contains(rows, "file_1") || strings.Contains(rows, "bash_1") {
		t.Errorf("a loaded action names a window id: %s", rows)
	}
	waitFor(t, ctx, "the approval and its answer", `[...document.querySelectorAll('.approval.settled .ap-note')].some(e => e.textContent === 'allowed')`)
	// In order: the card between the action before and the command it
	// allowed, above that command's result.
	order := eval[string](t, ctx, `[...document.querySelectorAll('.turn[data-turn="1"] .action, .turn[data-turn="1"] .approval')].map(e => e.matches('.approval') ? 'allowed' : e.querySelector('.act-arg').textContent.split(' ')[0]).join(',')`)
	if order != "open,run,open,edit,allowed,run" {
		t.Errorf("the actions and the approval in the order %s; want the card before the command it allowed", order)
	}
	waitFor(t, ctx, "the steered message", `document.querySelector('.turn[data-turn="1"]').textContent.includes('and keep it short')`)
	waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.turn[data-turn="1"] .md')].some(e => e.textContent.includes('Done and dusted.'))`)
	waitFor(t, ctx, "the bash window's last content", `(document.querySelector('[data-window="bash_1"] .win-content')||{}).textContent?.includes("a && <b>")`)
	if got := eval[string](t, ctx, `document.querySelector('[data-window="bash_1"] .win-content').textContent`); strings.Contains(got, "no command run yet") {
		t.Errorf("bash window: %q", got)
	}
	w.check(t, base)
}
