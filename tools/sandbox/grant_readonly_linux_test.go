//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// A read-only grant (plan mode) lets a command read the workspace and
// write nowhere in it, while the next command without it writes as usual.
func TestGrantReadOnlyWorkspace(t *testing.T) {
	tr := newTree(t)
	t.Setenv("HOME", tr.home)
	s := mustSandbox(t, tr.policy, Bwrap)
	os.WriteFile(filepath.Join(tr.ws, "a.txt"), []byte("hello\n"), 0o644)
	g := Grant{ReadOnlyWorkspace: true}
	if out, code := runGranted(t, s, tr.ws, "cat a.txt", g); code != 0 || out != "hello\n" {
		t.Fatalf("read: exit %d: %q", code, out)
	}
	for _, script := range []string{"echo x > b.txt", "rm a.txt", "python3 -c 'open(\"c.txt\",\"w\").write(\"x\")'", "mkdir d"} {
		if out, code := runGranted(t, s, tr.ws, script, g); code == 0 {
			t.Errorf("%s: wrote in a read-only workspace: %s", script, out)
		}
	}
	for _, name := range []string{"b.txt", "c.txt", "d"} {
		if _, err := os.Stat(filepath.Join(tr.ws, name)); err == nil {
			t.Errorf("%s was created", name)
		}
	}
	if _, err := os.Stat(filepath.Join(tr.ws, "a.txt")); err != nil {
		t.Errorf("a.txt went: %v", err)
	}
	if out, code := runIn(t, s, tr.ws, "echo x > b.txt"); code != 0 {
		t.Fatalf("write without the grant: exit %d: %s", code, out)
	}
}
