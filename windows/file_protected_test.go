package windows

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/protocol"
)

// Writing a protected file through a file window asks, with a reason that
// says what the file controls; the person's yes writes it, a no leaves it
// as it was. Ordinary files are written without asking.
func TestFileWindowAsksForProtectedFiles(t *testing.T) {
	var asked []ApprovalRequest
	allow := false
	approver := ApproverFunc(func(_ context.Context, r ApprovalRequest) Decision {
		asked = append(asked, r)
		return Decision{Allow: allow, Message: "test denies"}
	})
	for _, tc := range []struct {
		path, why string // why: a word of the reason; "" = not asked
	}{
		{"AGENTS.md", "instructions"},
		{".env", "redirect its API key"},
		{".vscode/tasks.json", "VS Code"},
		{".envrc", "direnv"},
		{".mcp.json", "start the programs"},
		{"main.go", ""},
	} {
		for _, yes := range []bool{false, true} {
			m, dir := newTestManager(t, approver)
			asked, allow = nil, yes
			os.MkdirAll(filepath.Join(dir, ".vscode"), 0o755)
			writeFile(t, filepath.Join(dir, tc.path), "before\n", 0o644)
			if r := do(t, m, "launcher", "open", `{"app":"file","target":"`+tc.path+`"}`); r.Status != protocol.StatusOK {
				// Opening a credential file (.env) asks too: denied, there is
				// nothing to edit.
				if yes || !strings.Contains(r.Text, "denied") {
					t.Fatalf("open %s = %+v", tc.path, r)
				}
				continue
			}
			asked = nil
			r := do(t, m, "file_1", "edit", `{"old_text":"before","new_text":"after"}`)
			b, _ := os.ReadFile(filepath.Join(dir, tc.path))
			switch {
			case tc.why == "":
				if len(asked) != 0 || string(b) != "after\n" {
					t.Errorf("%s: asked %v, content %q", tc.path, asked, b)
				}
			case len(asked) != 1 || !strings.Contains(asked[0].Reason, tc.why):
				t.Errorf("%s: asked %+v, want a reason with %q", tc.path, asked, tc.why)
			case yes && string(b) != "after\n", !yes && (string(b) != "before\n" || r.Status != protocol.StatusDenied):
				t.Errorf("%s (allow %v): %+v, content %q", tc.path, yes, r, b)
			}
		}
	}
}
