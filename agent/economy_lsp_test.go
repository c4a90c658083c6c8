package agent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/tools/lsp"
	"github.com/aci-dev/aci/windows"
)

// tenStepsTypeError is tenSteps in a Go module where the second edit
// makes a type error that the next step fixes: what a realistic session
// with a language server sees.
func tenStepsTypeError(diagnostics bool) scriptedSession {
	bad := call("file_1", "edit", map[string]any{"old_text": "return x + 100 // step", "new_text": `return x + "100" // fixed`})
	fix := call("file_1", "edit", map[string]any{"old_text": `return x + "100" // fixed`, "new_text": "return x + 100 // fixed"})
	s := tenSteps()
	s.name = "10-step-type-error"
	s.replies = append(s.replies[:4:4],
		fakeai.ToolCall(bad, testRun),
		"That broke the types.\n"+fakeai.ToolCall(fix),
		fakeai.ToolCall(editCall(1, 3), editCall(1, 4), testRun),
		fakeai.ToolCall(editCall(1, 5)),
		fakeai.ToolCall(testRun),
		"Fixed the five helpers' offsets; go test passes.")
	s.env = func(tb testing.TB, dir string, env *windows.Env) {
		// A module of valid Go: the helpers to fix close on the next line.
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module calc\n\ngo 1.22\n"), 0o644)
		f1 := filepath.Join(dir, "calc", "f1.go")
		b, _ := os.ReadFile(f1)
		os.WriteFile(f1, []byte(strings.ReplaceAll(string(b), "// step\n", "// step\n}\n")), 0o644)
		if !diagnostics {
			return
		}
		// gopls needs the real go, not the session's fake one.
		goBin, err := exec.LookPath(filepath.Join(runtime.GOROOT(), "bin", "go"))
		if err != nil {
			tb.Skip("no go in GOROOT")
		}
		env.Diagnostics = lsp.NewPool(lsp.Options{Workdir: dir, Wait: 10 * time.Second,
			Env: []string{"PATH=" + filepath.Dir(goBin) + string(os.PathListSeparator) + os.Getenv("PATH")}})
		tb.Cleanup(env.Diagnostics.Close)
	}
	if diagnostics {
		s.name += "+diagnostics"
	}
	return s
}

// TestDiagnosticsEconomy measures what gopls's diagnostics add to a
// ten-step session: the rendering of the type error while it lasts.
func TestDiagnosticsEconomy(t *testing.T) {
	testutil.NeedGopls(t)
	without := runEconomy(t, tenStepsTypeError(false))
	start := time.Now()
	with := runEconomy(t, tenStepsTypeError(true))
	took := time.Since(start)
	t.Logf("without diagnostics: %d bytes, cost %.0f; with: %d bytes, cost %.0f (+%d bytes, +%.0f cost, %+.1f%%); session took %s",
		without.bytes, without.cost, with.bytes, with.cost, with.bytes-without.bytes, with.cost-without.cost,
		100*(with.cost-without.cost)/without.cost, took.Round(time.Millisecond))
	if with.bytes <= without.bytes {
		t.Errorf("diagnostics added nothing: %d bytes, %d without", with.bytes, without.bytes)
	}
	if extra := with.cost - without.cost; extra > 0.05*without.cost {
		t.Errorf("diagnostics add %.0f to a session costing %.0f, want at most 5%%", extra, without.cost)
	}
	if testing.Verbose() {
		for i := range with.perStep {
			t.Log(fmt.Sprint(with.perStep[i], "  | without: ", without.perStep[i]))
		}
	}
}
