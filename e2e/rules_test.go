package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// runScript is one command the fake model runs, then "done".
func runScript(t *testing.T, command string) *fakeai.Server {
	return fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": command}),
		)},
		fakeai.Reply{Content: "done"},
	)
}

func putFile(t *testing.T, path, data string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A deny rule in the person's settings refuses a command without asking,
// even with --yes and although the guard finds nothing dangerous in it.
func TestDenyRuleHonouredWithYes(t *testing.T) {
	dir, xdg := t.TempDir(), t.TempDir()
	putFile(t, filepath.Join(xdg, "aci", "settings.json"), `{"permissions": {"deny": ["bash:rm -rf"]}}`)
	putFile(t, filepath.Join(dir, "keep", "f"), "x")
	r := aci(t, dir, runScript(t, "ls && rm -rf keep"), "clean", []string{"XDG_CONFIG_HOME=" + xdg}, "--yes")
	if r.code != 0 || !strings.Contains(r.stderr, "denied by the rule deny bash:rm -rf") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep", "f")); err != nil {
		t.Error("the denied command ran")
	}
}

// A project's settings cannot allow what the person's do not: in ask
// mode, its allow entry leaves the command asked (denied in pipe mode);
// the same entry in the person's settings lets it run. A malformed entry
// is named with its file and key, and the rest applies.
func TestProjectRuleCannotWiden(t *testing.T) {
	dir, xdg := t.TempDir(), t.TempDir()
	putFile(t, filepath.Join(dir, ".aci", "settings.json"), `{"permissions": {"allow": ["bash:touch made.txt"]}}`)
	env := []string{"XDG_CONFIG_HOME=" + xdg}
	r := aci(t, dir, runScript(t, "touch made.txt"), "make it", env, "--permission-mode", "ask")
	if r.code != 0 || !strings.Contains(r.stderr, "denied by aci in pipe mode") || !strings.Contains(r.stderr, "can only narrow") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Fatal("the project's allow widened the person's")
	}
	putFile(t, filepath.Join(xdg, "aci", "settings.json"), `{"permissions": {"allow": ["bash:touch made.txt", 7]}}`)
	r = aci(t, dir, runScript(t, "touch made.txt"), "make it", env, "--permission-mode", "ask")
	if r.code != 0 || !strings.Contains(r.stderr, "permissions.allow[1]") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err != nil {
		t.Errorf("the person's allow did not apply:\n%s", r.stderr)
	}
}
