package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A running command on the page: its action row grows with its output as
// it comes, its bash window is listed from the moment it opens and shows
// the output while the command runs; at the end the row holds the output
// once.
func TestPageShowsOutputAsItRuns(t *testing.T) {
	ctx := browser(t)
	ai := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
		fakeai.Reply{Content: fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "for i in 1 2 3 4 5 6; do echo tick-$i; sleep 1; done"}))},
		fakeai.Reply{Content: "Counted."},
	)
	w, base := openWatched(t, ctx, ai, t.TempDir())
	start := time.Now()
	ask(t, ctx, "count")
	waitFor(t, ctx, "the bash window listed while the command runs", `!!document.querySelector('[data-window="bash_1"]')`)
	waitFor(t, ctx, "the first ticks in the action row", `(document.querySelector('.action.running .act-live')?.textContent || '').includes('tick-2')`)
	row := eval[string](t, ctx, `document.querySelector('.action.running .act-live').textContent`)
	if strings.Contains(row, "tick-6") || time.Since(start) > 5*time.Second {
		t.Fatalf("the row filled only at the end (%s): %q", time.Since(start), row)
	}
	waitFor(t, ctx, "the window showing the running command", `(document.querySelector('[data-window="bash_1"] .win-content')?.textContent || '').includes('tick-2')`)
	win := eval[string](t, ctx, `document.querySelector('[data-window="bash_1"] .win-content').textContent`)
	if !strings.Contains(win, "[running]") || strings.Contains(win, "tick-6") {
		t.Errorf("the window while running shows %q", win)
	}
	waitFor(t, ctx, "the turn's result", `!!document.querySelector('.turn .turn-foot')`)
	out := eval[string](t, ctx, `[...document.querySelectorAll('.action')].filter(a => a.textContent.includes('tick-$i')).map(a => a.querySelector('.act-body').textContent).join('|')`)
	if strings.Count(out, "tick-3") != 1 || !strings.Contains(out, "tick-6") {
		t.Errorf("the finished row holds %q", out)
	}
	waitFor(t, ctx, "the window after the run", `(document.querySelector('[data-window="bash_1"] .win-content')?.textContent || '').includes('exit 0')`)
	w.check(t, base)
}
