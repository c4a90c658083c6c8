package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
	"github.com/aci-dev/aci/internal/testutil"
)

// p at a question keeps the rule for this project in the person's
// configuration: a new session (here pipe mode, which cannot ask) runs
// the command without asking; /permissions lists the rule and removes it,
// and the next session asks (is denied) again.
func TestREPLProjectRuleSavedListedRemoved(t *testing.T) {
	t.Parallel()
	script := func() *fakeai.Server {
		return fakeai.New(t,
			fakeai.Reply{Content: fakeai.ToolCall(
				fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}},
				fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "touch made.txt"}},
			)},
			fakeai.Reply{Content: "finished"},
		)
	}
	work, home := t.TempDir(), t.TempDir()
	made := filepath.Join(work, "made.txt")
	s := startPaneIn(t, script(), work, home, nil, func(bin string) []string { return []string{bin, "--permission-mode", "ask"} })
	s.waitPrompt()
	s.typeLine("make it")
	scr := s.waitFor("allow? ›")
	if !strings.Contains(scr, "always for this project") {
		t.Errorf("the question does not offer this project:\n%s", scr)
	}
	s.typeLine("p") // answers take Enter
	s.waitFor("finished")
	s.waitPrompt()
	if _, err := os.Stat(made); err != nil {
		t.Fatalf("the allowed command did not run: %v", err)
	}
	os.Remove(made)

	pipe := func() string {
		cmd := exec.Command(testbin.Build(t), "--permission-mode", "ask", "-p", "make it")
		cmd.Dir = work
		cmd.Env = testutil.ChildEnv(home, script().URL, "sk-test")
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := pipe(); strings.Contains(out, "denied") {
		t.Fatalf("a new session did not apply the project rule:\n%s", out)
	}
	if _, err := os.Stat(made); err != nil {
		t.Fatal("the command did not run in the new session")
	}
	os.Remove(made)

	s.typeLine("/permissions")
	scr = s.waitFor("bash:touch made.txt")
	if !strings.Contains(scr, "this project") {
		t.Errorf("the rule's place is not said:\n%s", scr)
	}
	if strings.Contains(scr, "[2m") || strings.Contains(scr, "[22m") {
		t.Errorf("/permissions prints escape codes with the ESC dropped:\n%s", scr)
	}
	s.waitPrompt()
	s.typeLine("/permissions remove 1")
	s.waitFor("removed allow bash:touch made.txt")
	if out := pipe(); !strings.Contains(out, "denied") {
		t.Errorf("the removed rule still allows:\n%s", out)
	}
}
