package windows

import (
	"os/exec"
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
