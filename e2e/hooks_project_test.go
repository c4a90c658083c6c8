package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// TestProjectHookNamedAndPostToolUseOnlyAfterRun: a hook from the
// project's .claude/settings.json is said to be the project's, and
// PostToolUse runs after a call that ran, never after one denied (pipe
// mode denies a dangerous command without --yes).
func TestProjectHookNamedAndPostToolUseOnlyAfterRun(t *testing.T) {
	dir, xdg, logs := t.TempDir(), t.TempDir(), t.TempDir()
	log := filepath.Join(logs, "post.log")
	putFile(t, filepath.Join(dir, "keep", "f"), "x")
	putFile(t, filepath.Join(dir, ".claude", "settings.json"), hookSettings(t, map[string][]map[string]any{
		"PreToolUse":  {group("Bash", `grep -q curl && { echo "no network from here" >&2; exit 2; }; exit 0`, 0)},
		"PostToolUse": {group("Bash", "cat >> "+log+"; echo >> "+log, 0)},
	}))
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "curl -s https://example.com"}),
			call("bash_1", "run", map[string]any{"command": "rm -rf " + filepath.Join(dir, "keep")}),
			call("bash_1", "run", map[string]any{"command": "echo ran-fine"}),
		)},
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, dir, srv, "go", []string{"XDG_CONFIG_HOME=" + xdg}, "--trust")
	if r.code != 0 {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep", "f")); err != nil {
		t.Fatalf("the dangerous command ran without --yes:\n%s", r.stderr)
	}
	results := srv.Requests()[1].LastUser()
	if !strings.Contains(results, "blocked by a PreToolUse hook of the project's: no network from here") {
		t.Errorf("the block does not name the project's hook:\n%s", results)
	}
	b, _ := os.ReadFile(log)
	got := string(b)
	if !strings.Contains(got, "echo ran-fine") {
		t.Errorf("PostToolUse did not run after the command that ran:\n%s", got)
	}
	if strings.Contains(got, "rm -rf") || strings.Contains(got, "curl") {
		t.Errorf("PostToolUse ran for a denied or blocked call:\n%s", got)
	}
}
