package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/tools/sandbox"
)

// In the REPL, aci's own git calls on the machine (the undo snapshot of a
// turn that runs a command: git add -A, write-tree, diff-tree) run
// nothing the repository names: not its core.fsmonitor, hooks, filters
// or textconv, however they came there. And what a command plants in a
// nested repository is put back before the person's next git there.
func TestREPLGitCallsRunNothingTheRepositoryNames(t *testing.T) {
	if !sandbox.For(t.TempDir()).Contained() {
		t.Skip("this machine cannot contain commands")
	}
	work, home := t.TempDir(), t.TempDir()
	mark := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "evil.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"$0 $*\" >> "+mark+"\ncat\n"), 0o755)
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=p@x", "-c", "user.name=p"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.MkdirAll(filepath.Join(work, "sub", "repo"), 0o755)
	for _, d := range []string{work, filepath.Join(work, "sub", "repo")} {
		git(d, "init", "-q", ".")
		git(d, "commit", "-q", "--allow-empty", "-m", "first")
	}
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644)
	git(work, "add", "a.txt")
	git(work, "commit", "-q", "-m", "a")
	// What a repository may name, set up before aci starts.
	for _, kv := range [][2]string{{"core.fsmonitor", script}, {"filter.evil.clean", script}, {"filter.evil.smudge", script}, {"diff.evil.textconv", script}} {
		git(work, "config", kv[0], kv[1])
	}
	os.WriteFile(filepath.Join(work, ".gitattributes"), []byte("*.txt filter=evil diff=evil\n"), 0o644)
	for _, h := range []string{"post-index-change", "pre-commit", "reference-transaction"} {
		os.WriteFile(filepath.Join(work, ".git", "hooks", h), []byte("#!/bin/sh\necho hook >> "+mark+"\n"), 0o755)
	}
	plant := "mv sub subx && cp -a subx sub && printf '[core]\\n\\tfsmonitor = touch " + mark + "\\n' >> sub/repo/.git/config; echo two > a.txt"
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}},
			fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": plant}},
		)},
		fakeai.Reply{Content: "finished"},
	)
	s := startPaneIn(t, srv, work, home, nil, func(bin string) []string { return []string{bin, "--yes"} })
	s.waitPrompt()
	s.exchange("change a.txt", "finished")
	if b, err := os.ReadFile(mark); err == nil {
		t.Fatalf("aci's own git calls ran what the repository names:\n%s", b)
	}
	// The person's next git in the nested repository.
	cmd := exec.Command("git", "status")
	cmd.Dir = filepath.Join(work, "sub", "repo")
	cmd.Run()
	if b, err := os.ReadFile(mark); err == nil {
		t.Fatalf("what the command planted ran at the person's next git status:\n%s", b)
	}
}
