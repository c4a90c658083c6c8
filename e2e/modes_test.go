package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/tools/sandbox"
)

// Plan mode refuses every way a model may try to change the workspace —
// the file window's write and edit, a shell redirection, a script in
// python (and node where installed) — on real containment, while reading
// and read-only commands still work; the model is told it plans.
func TestPlanModeRefusesEveryWrite(t *testing.T) {
	dir := t.TempDir()
	if sandbox.For(dir).Kind() != sandbox.Bwrap {
		t.Skip("no bwrap here: plan mode's containment is not tested")
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	calls := []fakeai.Call{
		call("launcher", "open", map[string]any{"app": "bash"}),
		call("bash_1", "run", map[string]any{"command": "cat a.txt && ls"}),
		call("bash_1", "run", map[string]any{"command": "echo x > b.txt"}),
		call("bash_1", "run", map[string]any{"command": `python3 -c "open('c.txt','w').write('x')"`}),
		call("bash_1", "run", map[string]any{"command": "rm a.txt"}),
		call("bash_1", "run", map[string]any{"command": "echo y > a.txt", "uncontained": true}),
		call("launcher", "open", map[string]any{"app": "file", "target": "a.txt"}),
		call("file_1", "edit", map[string]any{"old_text": "alpha", "new_text": "beta"}),
		call("file_1", "write", map[string]any{"content": "gamma\n"}),
		call("launcher", "open", map[string]any{"app": "file", "target": "new.txt"}),
		call("file_2", "write", map[string]any{"content": "new\n"}),
	}
	if _, err := exec.LookPath("node"); err == nil {
		calls = append(calls, call("bash_1", "run", map[string]any{"command": `node -e "require('fs').writeFileSync('d.txt','x')"`}))
	}
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(calls...)},
		fakeai.Reply{Content: "Plan:\n1. change alpha to beta in a.txt"},
	)
	r := aci(t, dir, srv, "rename alpha", nil, "--permission-mode", "plan")
	if r.code != 0 {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "alpha\n" {
		t.Errorf("a.txt changed in plan mode: %q", b)
	}
	for _, name := range []string{"b.txt", "c.txt", "d.txt", "new.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was created in plan mode", name)
		}
	}
	reqs := srv.Requests()
	first := reqs[0].Messages
	if q := first[len(first)-1].Content; !strings.Contains(q, "permission mode plan") || !strings.Contains(q, "rename alpha") {
		t.Errorf("the model is not told it plans:\n%s", q)
	}
	results := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	if !strings.Contains(results, "alpha") {
		t.Errorf("the read-only command did not read a.txt:\n%s", results)
	}
	if n := strings.Count(results, "refused in plan mode"); n < 4 {
		t.Errorf("%d refusals said, want the file writes, the dangerous rm and the uncontained run:\n%s", n, results)
	}
}

// Ask mode asks before a file change that default mode makes without a
// question: in pipe mode, with no one to ask, the edit is denied.
func TestAskModeAsksBeforeAnEdit(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	script := func() *fakeai.Server {
		return fakeai.New(t,
			fakeai.Reply{Content: fakeai.ToolCall(
				call("launcher", "open", map[string]any{"app": "file", "target": "a.txt"}),
				call("file_1", "edit", map[string]any{"old_text": "alpha", "new_text": "beta"}),
			)},
			fakeai.Reply{Content: "done"},
		)
	}
	r := aci(t, dir, script(), "edit", nil, "--permission-mode", "ask")
	if r.code != 0 || !strings.Contains(r.stderr, "edit a.txt · denied: denied by aci in pipe mode") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "alpha\n" {
		t.Errorf("the edit ran without a yes: %q", b)
	}
	r = aci(t, dir, script(), "edit", nil, "--permission-mode", "default")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); r.code != 0 || string(b) != "beta\n" {
		t.Errorf("default mode: exit %d, a.txt %q\n%s", r.code, b, r.stderr)
	}
	// Claude Code's name for aci's default is taken too.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	r = aci(t, dir, script(), "edit", nil, "--permission-mode", "acceptEdits")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); r.code != 0 || string(b) != "beta\n" {
		t.Errorf("acceptEdits: exit %d, a.txt %q\n%s", r.code, b, r.stderr)
	}
}

// An unknown mode is a usage error naming the modes; --yes and another
// mode disagree.
func TestPermissionModeFlag(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t)
	r := aci(t, dir, srv, "q", nil, "--permission-mode", "careful")
	if r.code != 2 || !strings.Contains(r.stderr, "ask (Claude Code's default), default (acceptEdits), plan, yes (bypassPermissions)") {
		t.Errorf("unknown mode: exit %d stderr:\n%s", r.code, r.stderr)
	}
	r = aci(t, dir, srv, "q", nil, "--yes", "--permission-mode", "plan")
	if r.code != 2 || !strings.Contains(r.stderr, "disagree") {
		t.Errorf("--yes with plan: exit %d stderr:\n%s", r.code, r.stderr)
	}
}

// Without containment plan mode runs only commands known to be read-only.
func TestPlanModeWithoutSandbox(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "grep alpha a.txt"}),
			call("bash_1", "run", map[string]any{"command": "echo x > b.txt"}),
		)},
		fakeai.Reply{Content: "Plan: nothing"},
	)
	r := aci(t, dir, srv, "look", []string{"ACI_SANDBOX=off"}, "--permission-mode", "plan")
	if r.code != 0 {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Fatal("plan mode without a sandbox ran a writing command")
	}
	results := srv.Requests()[1].Messages[len(srv.Requests()[1].Messages)-1].Content
	if !strings.Contains(results, "alpha") || !strings.Contains(results, "refused in plan mode: echo x > b.txt") {
		t.Errorf("results:\n%s", results)
	}
}
