package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A session is listed by what the person typed, though the model got
// aci's additions: plan mode's note, a command's expanded prompt, /init's.
func TestSessionsListWhatWasTyped(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + t.TempDir()}
	os.MkdirAll(filepath.Join(dir, ".aci", "commands"), 0o755)
	os.WriteFile(filepath.Join(dir, ".aci", "commands", "fix-issue.md"), []byte("---\ndescription: fix an issue\n---\nFix issue #$1 ($ARGUMENTS) with care."), 0o644)
	srv := fakeai.New(t, fakeai.Reply{Content: "1. read calc"}, fakeai.Reply{Content: "fixed"}, fakeai.Reply{Content: "wrote AGENTS.md"})
	for _, args := range [][]string{
		{"--permission-mode", "plan", "-p", "how would you fix calc?"},
		{"-p", "/fix-issue 9 low"},
		{"-p", "/init"},
	} {
		if r := aci(t, dir, srv, "", env, args...); r.code != 0 {
			t.Fatalf("%q: %d %s", args, r.code, r.stderr)
		}
	}
	reqs := srv.Requests()
	if !mentions(reqs[0], "[aci: permission mode plan") || !mentions(reqs[1], "Fix issue #9 (9 low) with care.") {
		t.Fatalf("the model did not get aci's additions: %+v", reqs)
	}
	r := aci(t, dir, srv, "", env, "--sessions")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 3 {
		t.Fatalf("--sessions: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for i, want := range []string{"/init", "/fix-issue 9 low", "how would you fix calc?"} {
		if f := strings.SplitN(lines[i], "1 turn", 2); len(f) != 2 || strings.TrimSpace(f[1]) != want {
			t.Errorf("row %d %q, want it to end %q", i, lines[i], want)
		}
	}
	if strings.Contains(r.stdout, "[aci:") || strings.Contains(r.stdout, "Fix issue") {
		t.Errorf("--sessions shows aci's additions:\n%s", r.stdout)
	}
}
