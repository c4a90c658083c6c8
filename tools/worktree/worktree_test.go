package worktree

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"fix-1", true}, {"a.b_c", true}, {"", false}, {"-x", false}, {"a/b", false},
		{"..", false}, {"a..b", false}, {"x.lock", false}, {"a b", false}, {strings.Repeat("a", 65), false},
		{strings.Repeat("a", 64), true}, {"9.z-", true}, {"_a", false}, {"ü", false}, {"a\n", false},
	} {
		if got := ValidName(tt.name); got != tt.ok {
			t.Errorf("ValidName(%q) = %v, want %v", tt.name, got, tt.ok)
		}
	}
}

// A folder outside any repository is a usage error naming the way out.
func TestNotARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	_, err := New(t.TempDir(), "x")
	var u *UsageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "needs a git repository") {
		t.Fatalf("err = %v", err)
	}
}

// New makes REPO.worktrees/NAME on aci/NAME; Diff shows an uncommitted
// change as one diff; Drop removes worktree and branch.
func TestNewDiffDrop(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := filepath.Join(t.TempDir(), "r")
	os.MkdirAll(filepath.Join(repo, "sub"), 0o755)
	os.WriteFile(filepath.Join(repo, "sub", "f"), []byte("a\n"), 0o644)
	for _, a := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "s"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, a...)...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	wt, err := New(filepath.Join(repo, "sub"), "n1")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(repo), "r.worktrees", "n1", "sub"); wt.Path != want || wt.Branch != "aci/n1" {
		t.Fatalf("worktree %+v, want path %s", wt, want)
	}
	if _, err := New(repo, "n1"); err == nil {
		t.Error("a second n1 was made")
	}
	os.WriteFile(filepath.Join(wt.Path, "f"), []byte("b\n"), 0o644)
	d, err := wt.Diff(false)
	if err != nil || !strings.Contains(d, "-a\n+b") {
		t.Fatalf("diff %q %v", d, err)
	}
	if names, _ := List(repo); len(names) != 1 || names[0] != "n1" {
		t.Errorf("List = %v", names)
	}
	if err := wt.Drop(); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(repo, "n1"); err == nil {
		t.Error("n1 still found after Drop")
	}
	if got, _ := os.ReadFile(filepath.Join(repo, "sub", "f")); string(got) != "a\n" {
		t.Errorf("the repository's file changed: %q", got)
	}
}
