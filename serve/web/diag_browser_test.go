package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

// A file window on the page shows the diagnostics the model reads: the
// type error its edit made.
func TestPageShowsDiagnostics(t *testing.T) {
	testutil.NeedGopls(t)
	ctx := browser(t)
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(work, "main.go"), []byte("package main\n\nfunc main() {\n\tvar n int = 1\n\t_ = n\n}\n"), 0o644)
	ai := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": "main.go"}))},
		fakeai.Reply{Content: fakeai.ToolCall(call("file_1", "edit", map[string]any{"old_text": "= 1", "new_text": `= "one"`}))},
		fakeai.Reply{Content: "Broke it."},
	)
	openPage(t, ctx, ai, work)
	ask(t, ctx, "break main.go")
	waitFor(t, ctx, "the turn's result", `!!document.querySelector('.turn .turn-foot')`)
	waitFor(t, ctx, "the file window with its diagnostics",
		`(document.querySelector('[data-window="file_1"] .win-content')?.textContent || '').includes('diagnostics (gopls): 1 error')`)
	win := eval[string](t, ctx, `document.querySelector('[data-window="file_1"] .win-content').textContent`)
	if !strings.Contains(win, `4:14 cannot use "one"`) {
		t.Errorf("the window shows %q", win)
	}
}
