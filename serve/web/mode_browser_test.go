package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/chromedp/chromedp"
)

// The page's mode selector switches the session to plan mode: the next
// write is refused; Accept plan switches back to default and the model
// carries the plan out.
func TestPageModeSelectorAndAcceptPlan(t *testing.T) {
	ctx := browser(t)
	workdir := t.TempDir()
	target := filepath.Join(workdir, "plan.txt")
	ai := fakeai.New(t,
		fakeai.Reply{Content: "hello"},
		fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "file", "target": "plan.txt"}),
			call("file_1", "write", map[string]any{"content": "too early\n"}),
		)},
		fakeai.Reply{Content: "Plan:\n1. write plan.txt"},
		fakeai.Reply{Content: fakeai.ToolCall(call("file_1", "write", map[string]any{"content": "done\n"}))},
		fakeai.Reply{Content: "carried out"},
	)
	openPage(t, ctx, ai, workdir)
	ask(t, ctx, "hi")
	waitFor(t, ctx, "the selector", `!document.getElementById('mode').hidden && document.getElementById('mode').value === 'default'`)
	waitFor(t, ctx, "the session idle", `document.getElementById('state').textContent === 'idle'`)
	// A server not started with yes does not offer it (it would refuse it).
	if got := eval[string](t, ctx, `[...document.getElementById('mode').options].map(o => o.value).join(',')`); got != "ask,default,plan" {
		t.Errorf("the selector offers %q, want ask,default,plan", got)
	}
	// Claude Code's names beside aci's.
	if got := eval[string](t, ctx, `[...document.getElementById('mode').options].map(o => o.textContent).join('|')`); got != "mode: ask (Claude Code's default)|mode: default (acceptEdits)|mode: plan" {
		t.Errorf("the selector's names: %q", got)
	}
	pickMode(t, ctx, "plan")
	ask(t, ctx, "make plan.txt")
	waitFor(t, ctx, "Accept plan", `!document.getElementById('accept-plan').hidden`)
	if _, err := os.Stat(target); err == nil {
		t.Fatal("plan mode wrote the file")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("accept-plan"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "default mode again", `document.getElementById('mode').value === 'default' && document.getElementById('accept-plan').hidden`)
	waitFor(t, ctx, "the plan carried out", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('carried out'))`)
	if b, err := os.ReadFile(target); err != nil || string(b) != "done\n" {
		t.Errorf("after accepting: %q, %v", b, err)
	}
	reqs := ai.Requests()
	last := reqs[3].Last()
	if !strings.Contains(last, "accepted your plan") {
		t.Errorf("the model is not told the plan was accepted:\n%s", last)
	}
}

// In plan mode an answer with no numbered steps is no plan: Accept plan,
// shown after the plan before it, goes.
func TestPageNoAcceptForAnAnswerThatIsNoPlan(t *testing.T) {
	ctx := browser(t)
	ai := fakeai.New(t, fakeai.Reply{Content: "hello"}, fakeai.Reply{Content: "Plan:\n1. read go.mod"}, fakeai.Reply{Content: "The project is a small Go CLI."})
	openPage(t, ctx, ai, t.TempDir())
	ask(t, ctx, "hi")
	waitFor(t, ctx, "the session idle", `document.getElementById('state').textContent === 'idle' && !document.getElementById('mode').hidden`)
	pickMode(t, ctx, "plan")
	ask(t, ctx, "plan a look")
	waitFor(t, ctx, "Accept plan after the plan", `!document.getElementById('accept-plan').hidden && document.getElementById('state').textContent === 'idle'`)
	ask(t, ctx, "what is this project?")
	waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('small Go CLI'))`)
	waitFor(t, ctx, "the session idle", `document.getElementById('state').textContent === 'idle'`)
	if eval[bool](t, ctx, `!document.getElementById('accept-plan').hidden`) {
		t.Error("Accept plan is offered after an answer that is no plan")
	}
}

// In ask mode a file change is asked with Claude Code's offer: "Accept
// edits (session)" allows it and switches the session to default
// (acceptEdits), so the next file is not asked.
func TestPageAcceptEditsForTheSession(t *testing.T) {
	ctx := browser(t)
	workdir := t.TempDir()
	os.WriteFile(filepath.Join(workdir, "a.txt"), []byte("alpha\n"), 0o644)
	ai := fakeai.New(t,
		fakeai.Reply{Content: "hello"},
		fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "file", "target": "a.txt"}),
			call("file_1", "edit", map[string]any{"old_text": "alpha", "new_text": "beta"}),
			call("launcher", "open", map[string]any{"app": "file", "target": "b.txt"}),
			call("file_2", "write", map[string]any{"content": "two\n"}),
		)},
		fakeai.Reply{Content: "both edited"},
	)
	openPage(t, ctx, ai, workdir)
	ask(t, ctx, "hi")
	waitFor(t, ctx, "the session idle", `document.getElementById('state').textContent === 'idle' && !document.getElementById('mode').hidden`)
	pickMode(t, ctx, "ask")
	ask(t, ctx, "edit both")
	waitFor(t, ctx, "the offer", `!!document.querySelector('.approval:not(.settled) button.accept-edits')`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(".approval:not(.settled) button.accept-edits"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('both edited'))`)
	waitFor(t, ctx, "default mode", `document.getElementById('mode').value === 'default'`)
	if n := eval[int](t, ctx, `document.querySelectorAll('.approval').length`); n != 1 {
		t.Errorf("%d questions, want 1 (the second file is not asked)", n)
	}
	a, _ := os.ReadFile(filepath.Join(workdir, "a.txt"))
	b, _ := os.ReadFile(filepath.Join(workdir, "b.txt"))
	if string(a) != "beta\n" || string(b) != "two\n" {
		t.Errorf("a.txt %q, b.txt %q", a, b)
	}
}
