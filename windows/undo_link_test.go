package windows

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A file replaced since the turn by another of the same content is
// someone else's: identity counts, not content alone.
func TestUndoChecksIdentity(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	writeFile(t, a, "a0\n", 0o644)
	j := NewUndoJournal()
	j.SetWorkspace(dir)
	j.BeginTurn(1)
	journalled(t, j, a, "a1\n")
	j.EndTurn()
	tmp := filepath.Join(dir, "a.new")
	writeFile(t, tmp, "a1\n", 0o644)
	if err := os.Rename(tmp, a); err != nil {
		t.Fatal(err)
	}
	u, err := j.Undo()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(a); string(b) != "a1\n" || !slices.Equal(u.Refused, []string{a}) {
		t.Errorf("a = %q, result %+v: a file put in its place must be left alone", b, u)
	}
}

// What commands changed (a git workspace) is not put back through a folder
// that became a link to outside: refused and named, the outside untouched.
func TestRewindCommandChangesThroughLink(t *testing.T) {
	m, dir, j := journalledGit(t)
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	writeFile(t, filepath.Join(dir, "d", "f.txt"), "v0\n", 0o644)
	gitCommit(t, dir, "-A")
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	j.BeginTurn(1)
	if r := do(t, m, "bash_1", "run", `{"command":"echo v1 > d/f.txt; echo n > d/made.txt"}`); r.Status != "ok" {
		t.Fatal(r.Text)
	}
	j.EndTurn()
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "f.txt"), "v1\n", 0o644)
	writeFile(t, filepath.Join(outside, "made.txt"), "n\n", 0o644)
	if err := os.Rename(filepath.Join(dir, "d"), filepath.Join(dir, "d.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "d")); err != nil {
		t.Fatal(err)
	}
	u, err := j.RewindTo(1)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"f.txt": "v1\n", "made.txt": "n\n"} {
		if b, err := os.ReadFile(filepath.Join(outside, name)); err != nil || string(b) != want {
			t.Errorf("outside %s = %q, %v: the rewind reached through the link (%+v)", name, b, err, u)
		}
	}
	failed := strings.Join(u.Failed, "\n")
	for _, name := range []string{"d/f.txt", "d/made.txt"} {
		if !strings.Contains(failed, filepath.Join(dir, name)+": refused: its folder "+filepath.Join(dir, "d")+" is now a link") {
			t.Errorf("%s not refused and named: %+v", name, u)
		}
	}
}
