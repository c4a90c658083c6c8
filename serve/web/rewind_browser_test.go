package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/chromedp/chromedp"
)

// "rewind to here" on the first turn: both turns' files come back, the
// conversation continues in a branch with no turn, and the question is
// back in the message box to edit.
func TestPageRewindToHere(t *testing.T) {
	ctx := browser(t)
	workdir := t.TempDir()
	a, b := filepath.Join(workdir, "a.txt"), filepath.Join(workdir, "b.txt")
	for p, data := range map[string]string{a: "a0\n", b: "b0\n"} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(target, window, old, new string) string {
		return fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": target}),
			call(window, "edit", map[string]any{"old_text": old, "new_text": new}))
	}
	ai := fakeai.New(t,
		fakeai.Reply{Content: edit("a.txt", "file_1", "a0", "a1")},
		fakeai.Reply{Content: "Changed a."},
		fakeai.Reply{Content: edit("b.txt", "file_2", "b0", "b2")},
		fakeai.Reply{Content: "Changed b."},
	)
	w, base := openWatched(t, ctx, ai, workdir)
	ask(t, ctx, "Please change a")
	waitFor(t, ctx, "turn 1's answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Changed a.')) && document.getElementById('state').textContent === 'idle'`)
	ask(t, ctx, "Now change b")
	waitFor(t, ctx, "turn 2's answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Changed b.')) && document.getElementById('state').textContent === 'idle'`)
	parent := eval[string](t, ctx, `location.hash.slice(1)`)

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.turn[data-turn="1"] button.rewind`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the choices", `!!document.querySelector('.rewind-menu .rw-both')`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.rewind-menu .rw-both`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the rewound conversation open, the question back in the box",
		`location.hash.slice(1) !== `+jsString(parent)+` && document.querySelectorAll('.turn').length === 0 && document.getElementById('input').value === 'Please change a'`)
	if got := eval[string](t, ctx, `document.getElementById('toast').textContent`); !strings.HasPrefix(got, "restored a.txt, b.txt · changes commands made outside the workspace") {
		t.Errorf("the page said %q", got)
	}
	for p, want := range map[string]string{a: "a0\n", b: "b0\n"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s = %q after the rewind", filepath.Base(p), got)
		}
	}
	waitFor(t, ctx, "the rewound session under its parent", `!!document.querySelector('#sessions .kids .sess.active')`)
	w.check(t, base)
}
