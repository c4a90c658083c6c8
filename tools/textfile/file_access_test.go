package textfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/testfs"
)

// accessTree is a workspace and a fake home beside it, HOME pointing there
// so that the secret stores are the fake ones.
type accessTree struct{ ws, home, bashrc, key, notes string }

func newAccessTree(t *testing.T) accessTree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := accessTree{ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home")}
	tr.bashrc = filepath.Join(tr.home, ".bashrc")
	tr.key = filepath.Join(tr.home, ".ssh", "id_ed25519")
	tr.notes = filepath.Join(tr.home, "notes.txt")
	for _, d := range []string{filepath.Join(tr.ws, "sub"), filepath.Join(tr.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, c := range map[string]string{
		tr.bashrc: "orig bashrc\n", tr.key: "KEY-MATERIAL\n", tr.notes: "notes\n",
		filepath.Join(tr.ws, "a.txt"): "harmless\n", filepath.Join(tr.ws, "b.txt"): "other\n",
		filepath.Join(tr.ws, "sub", "c.txt"): "in sub\n",
	} {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", tr.home)
	return tr
}

// secretOf treats the fake ~/.ssh as secret, like the guard does.
func (tr accessTree) secretOf(p string) string {
	if strings.HasPrefix(p, filepath.Join(tr.home, ".ssh")) {
		return "an SSH key"
	}
	return ""
}

func (tr accessTree) access(path string) *FileAccess {
	return NewFileAccess(tr.ws, path, tr.secretOf)
}

// relink makes path a symlink to target, atomically.
func relink(t *testing.T, path, target string) {
	t.Helper()
	tmp := path + ".newlink"
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func wantRefused(t *testing.T, what string, err error, words string) {
	t.Helper()
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), words) {
		t.Errorf("%s: err = %v, want refused (%s)", what, err, words)
	}
}

func TestFileAccessLinkChangedAfterOpen(t *testing.T) {
	for _, tc := range []struct {
		name, target, words string
	}{
		{"outside", "bashrc", "outside the workspace"},
		{"secret", "key", "SSH key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newAccessTree(t)
			path := filepath.Join(tr.ws, "a.txt")
			a := tr.access(path)
			if lr, err := a.ReadLines(path, 1, 10, 100); err != nil || lr.Lines[0] != "harmless" {
				t.Fatalf("before: %v %v", lr, err)
			}
			target := map[string]string{"bashrc": tr.bashrc, "key": tr.key}[tc.target]
			relink(t, path, target)
			_, err := a.ReadLines(path, 1, 10, 100)
			wantRefused(t, "ReadLines", err, tc.words)
			_, err = a.ReadTextFile(path)
			wantRefused(t, "ReadTextFile", err, tc.words)
			_, err = a.IsBinary(path)
			wantRefused(t, "IsBinary", err, tc.words)
			err = a.WriteAtomic(path, []byte("pwned\n"), 0o644)
			wantRefused(t, "WriteAtomic", err, tc.words)
			if b, _ := os.ReadFile(tr.bashrc); string(b) != "orig bashrc\n" {
				t.Errorf("bashrc = %q", b)
			}
			if b, _ := os.ReadFile(tr.key); string(b) != "KEY-MATERIAL\n" {
				t.Errorf("key = %q", b)
			}
		})
	}
}

func TestFileAccessFolderSwappedForLink(t *testing.T) {
	tr := newAccessTree(t)
	path := filepath.Join(tr.ws, "sub", ".bashrc")
	a := tr.access(path)
	os.RemoveAll(filepath.Join(tr.ws, "sub"))
	relink(t, filepath.Join(tr.ws, "sub"), tr.home)
	err := a.WriteAtomic(path, []byte("pwned\n"), 0o644)
	wantRefused(t, "write through a swapped folder", err, "outside the workspace")
	if b, _ := os.ReadFile(tr.bashrc); string(b) != "orig bashrc\n" {
		t.Errorf("bashrc = %q", b)
	}
}

func TestFileAccessAllowed(t *testing.T) {
	tr := newAccessTree(t)
	// A link inside the workspace to another workspace file: followed, the
	// link stays.
	link := filepath.Join(tr.ws, "link.txt")
	os.Symlink("b.txt", link)
	a := tr.access(filepath.Join(tr.ws, "a.txt"))
	relink(t, filepath.Join(tr.ws, "a.txt"), "b.txt")
	if err := a.WriteAtomic(filepath.Join(tr.ws, "a.txt"), []byte("via link\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(tr.ws, "b.txt")); string(b) != "via link\n" {
		t.Errorf("b.txt = %q", b)
	}
	if fi, _ := os.Lstat(filepath.Join(tr.ws, "a.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	// A file opened outside the workspace on purpose stays usable.
	out := tr.access(tr.notes)
	if tf, err := out.ReadTextFile(tr.notes); err != nil || tf.Text != "notes\n" {
		t.Errorf("approved outside file: %q %v", tf.Text, err)
	}
	if err := out.WriteAtomic(tr.notes, []byte("new notes\n"), 0o644); err != nil {
		t.Errorf("approved outside write: %v", err)
	}
	// New files and folders in the workspace.
	p := filepath.Join(tr.ws, "new", "deep", "f.go")
	if err := tr.access(p).WriteAtomic(p, []byte("package f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(filepath.Join(tr.ws, "new", "deep")); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestFileAccessHardLinks(t *testing.T) {
	tr := newAccessTree(t)
	keyLink := filepath.Join(tr.ws, "innocent.txt")
	if err := os.Link(tr.key, keyLink); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	// Opened on the link itself, it passes the path checks: the inode check
	// must still find the key.
	_, err := tr.access(keyLink).ReadTextFile(keyLink)
	wantRefused(t, "read a hard link to a key", err, "secret store")
	err = tr.access(keyLink).WriteAtomic(keyLink, []byte("x"), 0o644)
	wantRefused(t, "write a hard link to a key", err, "hard links")
	notesLink := filepath.Join(tr.ws, "notes-link.txt")
	os.Link(tr.notes, notesLink)
	err = tr.access(notesLink).WriteAtomic(notesLink, []byte("x"), 0o644)
	wantRefused(t, "write a hard link to a file outside", err, "hard links")
	if b, _ := os.ReadFile(tr.notes); string(b) != "notes\n" {
		t.Errorf("notes = %q", b)
	}
}

func TestFileAccessDanglingLink(t *testing.T) {
	tr := newAccessTree(t)
	p := filepath.Join(tr.ws, "dangling")
	os.Symlink(filepath.Join(tr.home, ".profile"), p)
	err := tr.access(p).WriteAtomic(p, []byte("x"), 0o644)
	wantRefused(t, "dangling", err, "does not exist")
	if _, err := os.Stat(filepath.Join(tr.home, ".profile")); err == nil {
		t.Error("created the link's target outside the workspace")
	}
}

// A link flipped back and forth while writing never lets a write reach
// the file outside.
func TestFileAccessWriteRace(t *testing.T) {
	tr := newAccessTree(t)
	path := filepath.Join(tr.ws, "flip.txt")
	os.WriteFile(path, []byte("start\n"), 0o644)
	a := tr.access(path)
	stop := testfs.Churn(func(i int) {
		if i%2 == 0 {
			tmp := path + ".flip"
			os.Remove(tmp)
			os.Symlink(tr.bashrc, tmp)
			os.Rename(tmp, path)
		} else {
			tmp := path + ".flipf"
			os.WriteFile(tmp, []byte("file\n"), 0o644)
			os.Rename(tmp, path)
		}
	})
	wrote, refusedN := 0, 0
	for range 300 {
		err := a.WriteAtomic(path, []byte("written\n"), 0o644)
		switch {
		case err == nil:
			wrote++
		case errors.Is(err, ErrRefused):
			refusedN++
		}
	}
	stop()
	if b, _ := os.ReadFile(tr.bashrc); string(b) != "orig bashrc\n" {
		t.Fatalf("bashrc written through a swapped link: %q", b)
	}
	t.Logf("%d writes, %d refused", wrote, refusedN)
}

// BenchmarkFileAccessReadLines compares a checked viewport read with the
// plain one.
func BenchmarkFileAccessReadLines(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "f.go")
	os.WriteFile(path, []byte(strings.Repeat("line of code here\n", 2000)), 0o644)
	a := NewFileAccess(dir, path, func(string) string { return "" })
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			ReadLines(path, 1, 200, 2000)
		}
	})
	b.Run("checked", func(b *testing.B) {
		for b.Loop() {
			a.ReadLines(path, 1, 200, 2000)
		}
	})
}

// BenchmarkFileAccessWrite compares the checked atomic write with the plain
// one.
func BenchmarkFileAccessWrite(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "f.go")
	data := []byte(strings.Repeat("line of code here\n", 2000))
	os.WriteFile(path, data, 0o644)
	a := NewFileAccess(dir, path, func(string) string { return "" })
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			WriteAtomic(path, data, 0o644)
		}
	})
	b.Run("checked", func(b *testing.B) {
		for b.Loop() {
			a.WriteAtomic(path, data, 0o644)
		}
	})
}
