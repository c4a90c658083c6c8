package windows

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/lsp"
)

// BenchmarkFileDiagnosticsGopls is the time from an edit through a file
// window to its diagnostics from gopls, in the action: "error" edits make
// and fix a type error in turn, "same" edits change a comment (the
// diagnostics stay none, which gopls must still say).
func BenchmarkFileDiagnosticsGopls(b *testing.B) {
	testutil.NeedGopls(b)
	for _, kind := range []string{"error", "same"} {
		b.Run(kind, func(b *testing.B) {
			dir := b.TempDir()
			pool := lsp.NewPool(lsp.Options{Workdir: dir, Wait: 10 * time.Second})
			defer pool.Close()
			m := NewManager(Env{Workdir: dir, OutputLimit: 30000, Approver: denyAll(), Diagnostics: pool}, FileApp)
			defer m.CloseAll()
			os.WriteFile(filepath.Join(dir, "go.mod"), []byte(diagGoMod), 0o644)
			os.WriteFile(filepath.Join(dir, "main.go"), []byte(strings.Replace(diagBad, `"one"`, "1 // c0", 1)), 0o644)
			if r := benchDo(m, "launcher", "open", map[string]any{"app": "file", "target": "main.go"}); r.Status != protocol.StatusOK {
				b.Fatal(r.Text)
			}
			i := 0
			for b.Loop() {
				old, repl := fmt.Sprintf("1 // c%d", i), fmt.Sprintf("1 // c%d", i+1)
				if kind == "error" {
					old, repl = "1 // c0", `"one" // c0`
					if i%2 == 1 {
						old, repl = repl, old
					}
				}
				if r := benchDo(m, "file_1", "edit", map[string]any{"old_text": old, "new_text": repl}); r.Status != protocol.StatusOK {
					b.Fatal(r.Text)
				}
				_, v := viewOf(m, "file_1")
				if want := kind == "error" && i%2 == 0; strings.Contains(v.Content, "diagnostics (gopls): 1 error") != want {
					b.Fatalf("edit %d: want the error shown %v:\n%s", i, want, v.Content)
				}
				i++
			}
		})
	}
}

func benchDo(m *Manager, window, action string, params map[string]any) Result {
	b, _ := json.Marshal(params)
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(b, &raw)
	return m.Execute(context.Background(), window, action, raw)
}
