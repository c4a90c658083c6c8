//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// moveOut across file systems (a tmpfs mounted for the test, as root):
// the tree arrives whole, with its modes and links, and leaves the source.
func TestMoveOutAcrossFileSystems(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	src := filepath.Join(t.TempDir(), "fs")
	os.Mkdir(src, 0o755)
	if err := syscall.Mount("tmpfs", src, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(src, syscall.MNT_DETACH) })
	tree := filepath.Join(src, ".vscode")
	os.MkdirAll(filepath.Join(tree, "sub"), 0o750)
	os.WriteFile(filepath.Join(tree, "tasks.json"), []byte("{}\n"), 0o640)
	os.WriteFile(filepath.Join(tree, "sub", "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.Symlink("../tasks.json", filepath.Join(tree, "sub", "link"))
	os.Chmod(filepath.Join(tree, "sub"), 0o500) // read-only folder: filled before its mode is set
	dest := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(tree, dest); err == nil {
		t.Fatal("the rename did not cross file systems")
	}
	if err := moveOut(tree, dest); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tree); err == nil {
		t.Error("the source is still there")
	}
	for name, mode := range map[string]os.FileMode{"": 0o750, "tasks.json": 0o640, "sub": 0o500, "sub/run.sh": 0o755} {
		fi, err := os.Lstat(filepath.Join(dest, name))
		if err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v %v, want %v", name, err, fi.Mode(), mode)
		}
	}
	if l, err := os.Readlink(filepath.Join(dest, "sub", "link")); err != nil || l != "../tasks.json" {
		t.Errorf("link: %q %v", l, err)
	}
	os.Chmod(filepath.Join(dest, "sub"), 0o700)
}
