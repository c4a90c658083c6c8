package windows

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// gitInit makes dir a git repository with a committer, for the tests of
// what commands changed; the test skips where git is not installed.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, c := range [][]string{{"init", "-q"}, {"config", "user.email", "t@t"}, {"config", "user.name", "t"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, c...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %s", c, out)
		}
	}
}

// gitCommit adds paths (git add's arguments) and commits them.
func gitCommit(t *testing.T, dir string, paths ...string) {
	t.Helper()
	for _, c := range [][]string{append([]string{"add"}, paths...), {"commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, c...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %s", c, out)
		}
	}
}

// journalledGit is a manager with file, bash and web windows in a git
// workspace, whose changes the journal it returns records, as a session's.
func journalledGit(t *testing.T) (*Manager, string, *UndoJournal) {
	t.Helper()
	m, dir := newAppsManager(t, denyAll())
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	j := NewUndoJournal()
	j.SetWorkspace(dir)
	m.env.Journal = j
	gitInit(t, dir)
	return m, dir, j
}
