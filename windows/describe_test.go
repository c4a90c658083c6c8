package windows

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Each window describes its own calls in words, with no internal ids.
func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "calc.py"), []byte("x = 1\n"), 0o644)
	allow := ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{Allow: true} })
	m := NewManager(Env{Workdir: dir, OutputLimit: 30000, Approver: allow}, FileApp, BashApp, WebApp)
	defer m.CloseAll()
	do(t, m, "launcher", "open", `{"app":"file","target":"calc.py"}`)
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	calc := filepath.Join(dir, "calc.py")
	for _, tc := range []struct {
		window, action, params string
		want                   Description
	}{
		{"launcher", "open", `{"app":"file","target":"calc.py"}`, Description{"open calc.py", "read", []string{calc}}},
		{"launcher", "open", `{"app":"bash"}`, Description{"open a shell", "execute", nil}},
		{"launcher", "open", `{"app":"web_fetch","target":"https://go.dev"}`, Description{"fetch https://go.dev", "fetch", nil}},
		{"launcher", "open", `{"app":"image","target":"shot.png"}`, Description{"look at shot.png", "read", []string{filepath.Join(dir, "shot.png")}}},
		{"file_1", "edit", `{"old_text":"x = 1","new_text":"hello"}`, Description{"edit calc.py", "edit", []string{calc}}},
		{"file_1", "write", `{"content":"y"}`, Description{"write calc.py", "edit", []string{calc}}},
		{"file_1", "view", `{"start_line":40}`, Description{"read calc.py from line 40", "read", []string{calc}}},
		{"bash_1", "run", `{"command":"go test ./...\necho done"}`, Description{"run go test ./... …", "execute", nil}},
		{"bash_1", "start", `{"command":"make serve"}`, Description{"start make serve in the background", "execute", nil}},
		{"bash_1", "kill", `{"task_id":"task_2"}`, Description{"stop task task_2", "execute", nil}},
		{"gone_9", "run", `{}`, Description{"run", "other", nil}},
	} {
		var p map[string]json.RawMessage
		json.Unmarshal([]byte(tc.params), &p)
		got := m.Describe(tc.window, tc.action, p)
		if got.Title != tc.want.Title || got.Kind != tc.want.Kind || !slices.Equal(got.Paths, tc.want.Paths) {
			t.Errorf("%s.%s %s: %+v, want %+v", tc.window, tc.action, tc.params, got, tc.want)
		}
		if strings.Contains(got.Title, "bash_1") || strings.Contains(got.Title, "file_1") {
			t.Errorf("%q names a window id", got.Title)
		}
	}
}
