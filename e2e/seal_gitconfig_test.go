package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A git folder a contained command makes (where the index does not look
// too: vendor/, node_modules/) keeps only inert settings once the
// command ends: an ext:: remote, the protocol allowing it, a URL rewrite
// to ext::, an include and an alias are taken out, the result names each
// (key, file, why), and after aci exits the person's ordinary git fetch,
// pull and alias there run nothing the command planted.
func TestE2EGitConfigAllowList(t *testing.T) {
	cases := []struct {
		name, script, repo string
		note               []string
	}{
		{
			name:   "ext:: remote appended to vendor/lib's config",
			script: "git init -q vendor/lib && cat >> vendor/lib/.git/config <<'EOF'\n[protocol \"ext\"]\n\tallow = always\n[remote \"origin\"]\n\turl = ext::sh -c touch% MARK\n\tfetch = +refs/heads/*:refs/remotes/origin/*\nEOF",
			repo:   "vendor/lib",
			note:   []string{"vendor/lib/.git/config: taken out", "protocol.ext.allow", "remote.origin.url", "transport helper"},
		},
		{
			name: "url rewrite to ext::, include and alias in node_modules/pkg",
			script: "git init -q node_modules/pkg && cd node_modules/pkg && git remote add origin /nonexistent/x.git && git config 'url.ext::sh -c touch% MARK #.insteadOf' /nonexistent/ && " +
				"git config protocol.allow always && printf '[alias]\\n\\tst = !touch MARK\\n' > ../inc.cfg && git config include.path ../../inc.cfg && git config alias.pull '!touch MARK'",
			repo: "node_modules/pkg",
			note: []string{"node_modules/pkg/.git/config: taken out", "insteadof", "include.path", "alias.pull", "protocol.allow"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			work, home := t.TempDir(), t.TempDir()
			containedOrSkip(t, work)
			mark := filepath.Join(t.TempDir(), "ran")
			gitAt(t, work, "init", "-q", ".")
			gitAt(t, work, "commit", "-q", "--allow-empty", "-m", "first")
			srv := fakeai.New(t,
				fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
				runCall(strings.ReplaceAll(c.script, "MARK", mark)),
				fakeai.Reply{Content: "done"},
			)
			res := aci(t, work, srv, "go", []string{"HOME=" + home}, "--yes")
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			got := resultOf(t, srv, "call_2_1")
			for _, n := range c.note {
				if !strings.Contains(got, n) {
					t.Errorf("the result lacks %q: %.2000s", n, got)
				}
			}
			repo := filepath.Join(work, c.repo)
			cfg, _ := exec.Command("git", "config", "--file", filepath.Join(repo, ".git", "config"), "--list").Output()
			for _, bad := range []string{"ext::", "protocol", "include", "alias", "insteadof"} {
				if strings.Contains(strings.ToLower(string(cfg)), bad) {
					t.Errorf("the config still holds %q:\n%s", bad, cfg)
				}
			}
			for _, args := range [][]string{{"fetch", "origin"}, {"pull"}, {"st"}, {"status"}} {
				gitAt(t, repo, args...)
			}
			if _, err := os.Stat(mark); err == nil {
				t.Fatal("what the command planted ran at the person's next git")
			}
		})
	}
}
