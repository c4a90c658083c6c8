package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
)

// gitRepo makes a repository in a fresh folder with file.txt committed.
func wtRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := filepath.Join(t.TempDir(), "repo")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "file.txt"), []byte("one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

func wtGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return string(out)
}

// editScript opens file.txt and replaces old with new, then more calls,
// then says done.
func editScript(t *testing.T, old, new, done string, more ...fakeai.Reply) *fakeai.Server {
	replies := []fakeai.Reply{
		{Content: fakeai.ToolCall(openFile("file.txt")), Delay: time.Second},
		{Content: fakeai.ToolCall(call("file_1", "edit", map[string]any{"old_text": old, "new_text": new}))},
	}
	replies = append(append(replies, more...), fakeai.Reply{Content: done})
	return fakeai.New(t, replies...)
}

// TestWorktreesInParallel: two background sessions, each in its own
// worktree, change the same file at the same time; the workspace's copy
// stays as it was until each is merged by the person; one commits from
// inside the sandbox (the main repository's objects and refs writable
// there). Both merge; branches and worktrees are gone after.
func TestWorktreesInParallel(t *testing.T) {
	repo, home := wtRepo(t), bgHome(t)
	srv1 := editScript(t, "one", "ONE", "w1 done")
	srv2 := editScript(t, "ten", "TEN", "w2 done",
		fakeai.Reply{Content: fakeai.ToolCall(openBash,
			bashRun("git -c user.name=t -c user.email=t@e commit -qam 'from inside' && echo committed"))})
	r1 := bgRun(t, repo, home, srv1, "", "--bg", "change the first line", "--worktree", "w1")
	r2 := bgRun(t, repo, home, srv2, "", "--worktree=w2", "--bg", "change the last line")
	if r1.code != 0 || r2.code != 0 {
		t.Fatalf("--bg --worktree: %d %s / %d %s", r1.code, r1.stderr, r2.code, r2.stderr)
	}
	id1, id2 := strings.TrimSpace(r1.stdout), strings.TrimSpace(r2.stdout)
	wts := filepath.Join(filepath.Dir(repo), "repo.worktrees")
	waitLogs(t, repo, home, id1, "w1 done")
	waitLogs(t, repo, home, id2, "w2 done")
	if got, _ := os.ReadFile(filepath.Join(repo, "file.txt")); strings.Contains(string(got), "ONE") || strings.Contains(string(got), "TEN") {
		t.Fatalf("the workspace changed before a merge:\n%s", got)
	}
	if got, _ := os.ReadFile(filepath.Join(wts, "w1", "file.txt")); !strings.HasPrefix(string(got), "ONE\n") {
		t.Errorf("w1's file:\n%s", got)
	}
	if log := wtGit(t, repo, "log", "--format=%s", "aci/w2"); !strings.Contains(log, "from inside") {
		t.Errorf("the commit made inside the sandbox is not on aci/w2:\n%s", log)
	}
	if r := bgRun(t, repo, home, nil, "", "ps"); !strings.Contains(r.stdout, "[w1]") || !strings.Contains(r.stdout, "[w2]") {
		t.Errorf("ps:\n%s", r.stdout)
	}
	d := bgRun(t, repo, home, nil, "", "worktree", "diff", id1)
	if d.code != 0 || !strings.Contains(d.stdout, "-one\n+ONE") || strings.Contains(d.stdout, "TEN") {
		t.Errorf("diff w1: %d\n%s\n%s", d.code, d.stdout, d.stderr)
	}
	if r := bgRun(t, repo, home, nil, "", "worktree", "list"); !strings.Contains(r.stdout, "w1") || !strings.Contains(r.stdout, "w2") {
		t.Errorf("list:\n%s", r.stdout)
	}
	for _, arg := range []string{id1, "w2"} {
		if r := bgRun(t, repo, home, nil, "", "worktree", "merge", arg); r.code != 0 {
			t.Fatalf("merge %s: %d %s", arg, r.code, r.stderr)
		}
	}
	got, _ := os.ReadFile(filepath.Join(repo, "file.txt"))
	if !strings.HasPrefix(string(got), "ONE\n") || !strings.HasSuffix(string(got), "TEN\n") {
		t.Errorf("merged file:\n%s", got)
	}
	if b := wtGit(t, repo, "branch", "--list", "aci/*"); strings.TrimSpace(b) != "" {
		t.Errorf("branches left: %s", b)
	}
	if _, err := os.Stat(wts); !os.IsNotExist(err) {
		t.Errorf("worktrees folder left: %v", err)
	}
}

// TestWorktreePipeKeepsIt: aci -p --worktree works in its worktree and,
// with nobody to ask, keeps it for aci worktree merge|drop; drop removes
// it unmerged.
func TestWorktreePipeKeepsIt(t *testing.T) {
	repo, home := wtRepo(t), bgHome(t)
	srv := editScript(t, "two", "TWO", "changed")
	r := bgRun(t, repo, home, srv, "", "--worktree", "w3", "-p", "change line two")
	if r.code != 0 || r.stdout != "changed\n" || !strings.Contains(r.stderr, "kept the worktree") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(repo, "file.txt")); strings.Contains(string(got), "TWO") {
		t.Fatal("merged unasked")
	}
	if r := bgRun(t, repo, home, nil, "", "worktree", "drop", "w3"); r.code != 0 {
		t.Fatalf("drop: %s", r.stderr)
	}
	if b := wtGit(t, repo, "branch", "--list", "aci/*"); strings.TrimSpace(b) != "" {
		t.Errorf("branch left: %s", b)
	}
	if got, _ := os.ReadFile(filepath.Join(repo, "file.txt")); strings.Contains(string(got), "TWO") {
		t.Error("drop merged")
	}
}

// TestAgentWindowInWorktree: an agent window opened with worktree: true
// changes the file in its own worktree; the workspace's copy stays; the
// parent is told where the changes are; the person merges them.
func TestAgentWindowInWorktree(t *testing.T) {
	repo, home := wtRepo(t), bgHome(t)
	ai := fakeai.New(t)
	var parentSaw string
	ai.Handle(func(req fakeai.Request) fakeai.Reply {
		step, child := req.Step(), req.ChildOf("shout the third line")
		switch {
		case child && step == 1:
			return act(openFile("file.txt"))
		case child && step == 2:
			return act(call("file_1", "edit", map[string]any{"old_text": "three", "new_text": "THREE"}))
		case child:
			return fakeai.Reply{Content: "shouted"}
		case step == 1:
			return fakeai.Reply{Content: fakeai.ToolCall(
				call("launcher", "open", map[string]any{"app": "agent", "target": "shout the third line", "mode": "default", "worktree": true}),
				call("agent_1", "wait", map[string]any{}))}
		}
		parentSaw = req.Last()
		return fakeai.Reply{Content: "Done."}
	})
	r := bgRun(t, repo, home, ai, "", "-p", "send a helper")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(repo, "file.txt")); strings.Contains(string(got), "THREE") {
		t.Fatal("the child changed the workspace")
	}
	if !strings.Contains(parentSaw, "shouted") || !strings.Contains(parentSaw, "aci worktree merge agent-") {
		t.Errorf("the parent read:\n%s", parentSaw)
	}
	names := strings.Fields(wtGit(t, repo, "for-each-ref", "--format=%(refname:strip=3)", "refs/heads/aci/"))
	if len(names) != 1 {
		t.Fatalf("worktree branches %v", names)
	}
	if m := bgRun(t, repo, home, nil, "", "worktree", "merge", names[0]); m.code != 0 {
		t.Fatalf("merge: %s", m.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(repo, "file.txt")); !strings.Contains(string(got), "THREE") {
		t.Errorf("not merged:\n%s", got)
	}
}

// TestWorktreeREPLAsksAtTheEnd: a REPL session with --worktree asks, when
// it ends, whether to merge what it changed; m merges it.
func TestWorktreeREPLAsksAtTheEnd(t *testing.T) {
	repo, home := wtRepo(t), bgHome(t)
	srv := editScript(t, "five", "FIVE", "changed five")
	p := newTmux(t, repo, tmuxEnv(home, srv), testbin.Build(t), "--worktree", "w5")
	p.waitFor("the REPL", func(s string) bool {
		return strings.Contains(s, "working in the worktree") && strings.Contains(s, "›")
	})
	p.run("send-keys", "-t", "aci", "-l", "change line five")
	p.run("send-keys", "-t", "aci", "Enter")
	p.waitFor("the answer", func(s string) bool { return strings.Contains(s, "changed five") })
	p.run("send-keys", "-t", "aci", "C-d")
	p.waitFor("the question", func(s string) bool { return strings.Contains(s, "[m]erge") && strings.Contains(s, "file.txt") })
	if got, _ := os.ReadFile(filepath.Join(repo, "file.txt")); strings.Contains(string(got), "FIVE") {
		t.Fatal("merged before the answer")
	}
	p.run("send-keys", "-t", "aci", "m", "Enter")
	p.waitFor("merged", func(s string) bool { return strings.Contains(s, "merged aci/w5") })
	if got, _ := os.ReadFile(filepath.Join(repo, "file.txt")); !strings.Contains(string(got), "FIVE") {
		t.Errorf("not merged:\n%s", got)
	}
}
