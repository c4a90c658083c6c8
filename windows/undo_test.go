package windows

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// What a command changed in a git workspace is undone too: a changed file
// put back, a created one removed, a removed one restored; a file changed
// again after the turn is left alone; ignored files are not touched.
func TestUndoCommandChanges(t *testing.T) {
	m, dir, j := journalledGit(t)
	writeFile(t, filepath.Join(dir, ".gitignore"), "build/\n", 0o644)
	writeFile(t, filepath.Join(dir, "kept.txt"), "original\n", 0o644)
	writeFile(t, filepath.Join(dir, "gone.txt"), "will be removed\n", 0o644)
	writeFile(t, filepath.Join(dir, "later.txt"), "v1\n", 0o644)
	writeFile(t, filepath.Join(dir, "untracked.txt"), "not committed\n", 0o644)
	gitCommit(t, dir, "kept.txt", "gone.txt", "later.txt", ".gitignore")

	do(t, m, "launcher", "open", `{"app":"bash"}`)
	r := do(t, m, "bash_1", "run", `{"command":"echo changed > kept.txt; rm gone.txt; echo new > new.txt; echo v2 > later.txt; echo more >> untracked.txt; mkdir -p build && echo out > build/x"}`)
	if r.Status != "ok" {
		t.Fatal(r.Text)
	}
	j.EndTurn()
	writeFile(t, filepath.Join(dir, "later.txt"), "v3 by someone else\n", 0o644)

	u, err := j.Undo()
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(dir, name)); return string(b) }
	if read("kept.txt") != "original\n" || read("gone.txt") != "will be removed\n" || read("untracked.txt") != "not committed\n" {
		t.Errorf("not put back: kept %q gone %q untracked %q (%+v)", read("kept.txt"), read("gone.txt"), read("untracked.txt"), u)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("the created file is still there")
	}
	if read("later.txt") != "v3 by someone else\n" || !slices.Contains(u.Refused, filepath.Join(dir, "later.txt")) {
		t.Errorf("a file changed since was overwritten or not named: %q %+v", read("later.txt"), u)
	}
	if read("build/x") != "out\n" {
		t.Error("an ignored file was touched")
	}
}
