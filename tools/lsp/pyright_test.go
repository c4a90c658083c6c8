package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// needPyright makes pyright-langserver findable: on PATH, or installed
// from npm under $ACI_PYRIGHT (.ci/run).
func needPyright(t *testing.T) {
	t.Helper()
	needNPM(t, "pyright-langserver", "ACI_PYRIGHT", "pyright")
}

func TestPoolPyright(t *testing.T) {
	needPyright(t)
	if _, err := exec.LookPath("basedpyright-langserver"); err == nil {
		t.Skip("basedpyright is installed and would be used instead")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "app.py")
	bad := "def main() -> None:\n    x: int = \"one\"\n    print(x)\n"
	good := "def main() -> None:\n    x: int = 1\n    print(x)\n"
	os.WriteFile(path, []byte(bad), 0o644)
	p := NewPool(Options{Workdir: dir, Wait: 30 * time.Second})
	defer p.Close()
	start := time.Now()
	p.Sync(context.Background(), path, bad)
	t.Logf("first diagnostics (start included) after %s", time.Since(start).Round(time.Millisecond))
	r, ok := p.Diagnostics(path)
	if !ok || len(r.List) != 1 || r.List[0].Line != 2 || r.List[0].Severity != Error || !strings.Contains(r.List[0].Message, "int") {
		t.Fatalf("diagnostics for a type error: %+v", r)
	}
	if r.Server != "pyright-langserver" {
		t.Errorf("server %q", r.Server)
	}
	os.WriteFile(path, []byte(good), 0o644)
	start = time.Now()
	p.Sync(context.Background(), path, good)
	t.Logf("diagnostics of the fix after %s", time.Since(start).Round(time.Millisecond))
	// A server that watched for aci's process id, which the sandbox's
	// pid namespace hides, would have stopped and been restarted by now.
	time.Sleep(4 * time.Second)
	if r, _ := p.Diagnostics(path); len(r.List) != 0 || r.Note != "" {
		t.Errorf("diagnostics after the fix: %+v", r)
	}
}
