package safegit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// plantedRepo is a repository whose config, hooks and attributes each
// name a program that leaves a marker file when it runs.
func plantedRepo(t *testing.T) (dir, marker string) {
	t.Helper()
	dir, marker = t.TempDir(), filepath.Join(t.TempDir(), "ran")
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	run("init", "-q", ".")
	run("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "init")
	script := filepath.Join(dir, "evil.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marker+"\ncat\n"), 0o755)
	for _, kv := range [][2]string{
		{"core.fsmonitor", script},
		{"core.pager", script},
		{"filter.evil.clean", script},
		{"filter.evil.smudge", script},
		{"filter.evil.required", "true"},
		{"diff.evil.textconv", script},
		{"diff.external", script},
		{"diff.evil.command", script},
		{"include.path", filepath.Join(dir, "more.cfg")},
	} {
		run("config", kv[0], kv[1])
	}
	// A filter defined only in an included file counts too.
	os.WriteFile(filepath.Join(dir, "more.cfg"), []byte("[filter \"inc.x\"]\n\tclean = "+script+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt filter=evil diff=evil\n*.md filter=inc.x\n"), 0o644)
	for _, h := range []string{"pre-commit", "post-index-change", "pre-auto-gc", "reference-transaction"} {
		os.WriteFile(filepath.Join(dir, ".git", "hooks", h), []byte("#!/bin/sh\necho hook >> "+marker+"\n"), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.md"), []byte("hello\n"), 0o644)
	return dir, marker
}

func TestNothingTheRepositoryNamesRuns(t *testing.T) {
	dir, marker := plantedRepo(t)
	idx := filepath.Join(t.TempDir(), "index")
	ctx := context.Background()
	calls := [][]string{
		{"status", "--porcelain"},
		{"add", "-A", "--", "."},
		{"diff", "--cached", "--raw", "-z"},
		{"diff", "HEAD"},
		{"hash-object", "--path", "a.txt", "a.txt"},
		{"write-tree"},
		{"rev-parse", "--show-toplevel"},
		{"log", "-p", "-1"},
	}
	for _, args := range calls {
		if _, err := Output(ctx, dir, []string{"GIT_INDEX_FILE=" + idx}, nil, args...); err != nil {
			t.Errorf("git %v: %v", args, err)
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the repository's programs ran:\n%s", b)
	}
	// The same calls without the overrides do run them: the test plants
	// what it means to.
	cmd := exec.Command("git", "status")
	cmd.Dir = dir
	cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("plain git status ran nothing: the planted fsmonitor is not effective")
	}
}

func TestSubcommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"add", "-A"}, "add"},
		{[]string{"-C", "x", "-c", "a=b", "status"}, "status"},
		{[]string{"--no-pager", "diff"}, "diff"},
		{nil, ""},
	} {
		if got := subcommand(c.args); got != c.want {
			t.Errorf("subcommand(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
