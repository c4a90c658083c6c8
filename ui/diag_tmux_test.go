//go:build unix

package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

// TestREPLDiagnosticsAfterEdit: after an edit that leaves a type error,
// the person reads a line with the count and the first error, below the
// edit's own lines.
func TestREPLDiagnosticsAfterEdit(t *testing.T) {
	testutil.NeedGopls(t)
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(work, "main.go"), []byte("package main\n\nfunc main() {\n\tvar n int = 1\n\t_ = n\n}\n"), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": "main.go"}})},
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "file_1", Action: "edit", Params: map[string]any{"old_text": "= 1", "new_text": `= "one"`}})},
		fakeai.Reply{Content: "finished"},
	)
	// The machine's Go caches: a fresh home would make gopls's first load
	// of the standard library slower than the wait for diagnostics.
	var env []string
	for _, v := range []string{"GOCACHE", "GOMODCACHE"} {
		if out, err := exec.Command("go", "env", v).Output(); err == nil {
			env = append(env, v+"="+strings.TrimSpace(string(out)))
		}
	}
	s := startPaneIn(t, srv, work, t.TempDir(), env, func(bin string) []string { return []string{bin} })
	s.waitPrompt()
	scr := s.exchange("break main.go", "finished")
	line := strings.Index(scr, `· main.go: 1 error, first 4:14 cannot use "one"`)
	if line < 0 {
		t.Errorf("no line on the edit's error:\n%s", scr)
	} else if edit := strings.Index(scr, "✓ replaced 1 occurrence"); edit < 0 || edit > line {
		t.Errorf("the diagnostics line is not after the edit's:\n%s", scr)
	} else if testing.Verbose() {
		t.Log(scr)
	}
}
