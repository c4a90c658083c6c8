package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// Allowed (--yes) to delete or write outside the workspace, a command
// whose effect reaches the machine reports its exit status alone; one
// whose path led elsewhere inside the sandbox (a link planted while it
// ran, into the session's own /tmp or past a "..") exits 0, and the
// result says the effect is not done on the machine, and why.
func TestE2EGrantEffectsChecked(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	containedOrSkip(t, work)
	base, err := os.MkdirTemp("/tmp", "aci-e2e-effects-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	for _, d := range []string{"c/d", "c/d2"} {
		os.MkdirAll(filepath.Join(base, d), 0o755)
	}
	priv := base + "-private" // not on the machine: the session's own /tmp
	link := func(target, at string) string {
		return `python3 -c "import os; os.symlink('` + target + `', '` + filepath.Join(base, at) + `')"`
	}
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
		runCall("rm -rf "+base+"/c/d"),
		runCall(link("/tmp/aci-e2e-nowhere", "c/l")+"; rm -rf "+base+"/c/l/../d2"),
		runCall("mkdir -p "+priv+"; "+link(priv, "c/w")+"; echo hi > "+base+"/c/w/f"),
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, work, srv, "go", []string{"HOME=" + home}, "--yes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Lstat(filepath.Join(base, "c", "d")); err == nil {
		t.Errorf("rm -rf c/d did not reach the machine: %s", resultOf(t, srv, "call_2_1"))
	}
	if got := resultOf(t, srv, "call_2_1"); !strings.Contains(got, "exit 0") || strings.Contains(got, "NOT DONE") {
		t.Errorf("a delete that reached the machine: %s", got)
	}
	if _, err := os.Lstat(filepath.Join(base, "c", "d2")); err != nil {
		t.Fatalf("c/d2 is gone (the planted link did not lead elsewhere): %v", err)
	}
	if got := resultOf(t, srv, "call_3_1"); !strings.Contains(got, "NOT DONE on the machine") || !strings.Contains(got, filepath.Join(base, "c", "d2")+" is still there") {
		t.Errorf("a delete that did not reach the machine: %s", got)
	}
	if _, err := os.Lstat(filepath.Join(base, "c", "w", "f")); err == nil {
		t.Fatal("c/w/f is on the machine (the write was not kept private)")
	}
	if got := resultOf(t, srv, "call_4_1"); !strings.Contains(got, "NOT DONE on the machine") || !strings.Contains(got, "was not written") ||
		!strings.Contains(got, "session's own /tmp") {
		t.Errorf("a write the sandbox kept private: %s", got)
	}
}
