package windows

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/lsp"
)

// In ask mode a language server is asked about like a command before it
// first starts: a no leaves the file without diagnostics (and says so), a
// yes starts it.
func TestFileDiagnosticsAskMode(t *testing.T) {
	testutil.NeedGopls(t)
	for _, allow := range []bool{false, true} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.22\n", 0o644)
		writeFile(t, filepath.Join(dir, "main.go"), diagBad, 0o644)
		pool := lsp.NewPool(lsp.Options{Workdir: dir, Wait: 20 * time.Second})
		var mu sync.Mutex
		var asked []ApprovalRequest
		approver := ApproverFunc(func(_ context.Context, req ApprovalRequest) Decision {
			mu.Lock()
			asked = append(asked, req)
			mu.Unlock()
			return Decision{Allow: allow}
		})
		m := NewManager(Env{Workdir: dir, OutputLimit: 30000, Approver: approver, Diagnostics: pool,
			Mode: NewModeSwitch(ModeAsk)}, FileApp)
		if r := do(t, m, "launcher", "open", `{"app":"file","target":"main.go"}`); r.Status != protocol.StatusOK {
			t.Fatal(r.Text)
		}
		var v View
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if _, v = viewOf(m, "file_1"); strings.Contains(v.Content, "diagnostics") {
				break
			}
		}
		m.CloseAll()
		pool.Close()
		mu.Lock()
		if len(asked) != 1 || asked[0].Kind != "command" || !strings.Contains(asked[0].Subject, "gopls") {
			t.Errorf("allow=%v: asked %+v, want one command question naming gopls", allow, asked)
		}
		mu.Unlock()
		if allow && !strings.Contains(v.Content, "diagnostics (gopls)") {
			t.Errorf("allowed, yet no diagnostics:\n%s", v.Content)
		}
		if !allow && !strings.Contains(v.Content, "diagnostics: not started: denied by the person") {
			t.Errorf("denied, want the rendering to say so:\n%s", v.Content)
		}
	}
}
