package settings

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/testfs"
)

// Permissions and hooks come from the person's file and the project's
// three; a malformed entry is named by file and key and skipped, the rest
// applies.
func TestLoadPolicy(t *testing.T) {
	xdg, ws := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	testfs.File(t, filepath.Join(xdg, "aci", "settings.json"), `{"permissions": {"allow": ["bash:npm test", 5], "deny": ["bash:rm -rf"]},
		"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "check.sh", "timeout": 5}]},
		{"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}], "Bogus": []}}`)
	testfs.File(t, filepath.Join(ws, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(curl:*)"], "deny": ["Bash(git push:*)"]},
		"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt.sh"}, {"type": "prompt"}]}]}}`)
	testfs.File(t, filepath.Join(ws, ".aci", "settings.json"), `{"permissions": "all"}`)
	p, problems := loadPolicy(ws)
	want := []string{"permissions.allow[1]", "hooks.PreToolUse[1].matcher", "hooks.Bogus", "hooks.PostToolUse[0].hooks[1]", ".aci/settings.json: permissions"}
	all := strings.Join(problems, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no problem naming %s in:\n%s", w, all)
		}
	}
	if len(p.Person.Allow) != 1 || p.Person.Allow[0].Pattern != "bash:npm test" || len(p.Person.Deny) != 1 {
		t.Errorf("person %+v", p.Person)
	}
	if len(p.Project.Allow) != 1 || p.Project.Deny[0].Pattern != "Bash(git push:*)" {
		t.Errorf("project %+v", p.Project)
	}
	if len(p.Hooks) != 2 || p.Hooks[0].Project || !p.Hooks[1].Project || p.Hooks[0].Hooks[0].Timeout != 5 || p.Hooks[1].Matcher != "Edit|Write" {
		t.Errorf("hooks %+v", p.Hooks)
	}
}
