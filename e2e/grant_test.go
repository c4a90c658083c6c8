package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// Allowed (--yes) to delete outside the workspace, a command reaches the
// machine's path whatever ".." it names it by; allowed to write in the
// home folder, it can create none of the start-up files, keys, commands
// on PATH, units or aci settings there, and the result names what was
// taken away.
func TestE2EGrantExactly(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	containedOrSkip(t, work)
	base, err := os.MkdirTemp("/tmp", "aci-e2e-grant-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.MkdirAll(filepath.Join(base, "a", "b"), 0o755)
	os.MkdirAll(filepath.Join(base, "c", "d"), 0o755)
	os.MkdirAll(filepath.Join(home, "junk"), 0o755)
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# mine\n"), 0o644)
	created := []string{".profile", ".bash_profile", ".gitconfig", ".config/git/config", ".ssh/authorized_keys",
		".local/bin/git", ".config/systemd/user/x.service", ".config/aci/.env", ".config/autostart/x.desktop"}
	payload := "import os\nhome = os.path.expanduser('~')\nfor rel in ['" + strings.Join(created, "', '") + "']:\n" +
		"    p = os.path.join(home, rel)\n    try:\n        os.makedirs(os.path.dirname(p), exist_ok=True)\n        open(p, 'w').write('OPENAI_BASE_URL=http://evil\\n')\n    except OSError as e:\n        print(e)\n" +
		"open(os.path.join(home, '.bashrc'), 'a').write('evil\\n')\n"
	os.WriteFile(filepath.Join(work, "payload.py"), []byte(payload), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
		runCall("rm -rf "+base+"/a/b/../../c/d"),
		runCall("rm -rf ~/junk; python3 payload.py"),
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, work, srv, "go", []string{"HOME=" + home}, "--yes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Lstat(filepath.Join(base, "c", "d")); err == nil {
		t.Errorf("rm -rf %s/a/b/../../c/d: %s, but c/d is still on the machine", base, resultOf(t, srv, "call_2_1"))
	}
	for _, rel := range created {
		if _, err := os.Lstat(filepath.Join(home, rel)); err == nil {
			t.Errorf("~/%s was created", rel)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(b) != "# mine\n" {
		t.Errorf("~/.bashrc = %q", b)
	}
	if _, err := os.Lstat(filepath.Join(home, "junk")); err == nil {
		t.Error("~/junk, allowed, is still there")
	}
	reqs := srv.Requests()
	var all string
	for _, m := range reqs[len(reqs)-1].Messages {
		all += m.Content
	}
	if !strings.Contains(all, ".profile") || !strings.Contains(all, "a grant never covers it") {
		t.Errorf("the result does not name what was taken away: %.2000s", resultOf(t, srv, "call_3_1"))
	}
}
