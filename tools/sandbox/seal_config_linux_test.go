//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gitConfigList is what git reads from one config file ("" when none).
func gitConfigList(file string) string {
	out, _ := exec.Command("git", "config", "--file", file, "--list").Output()
	return string(out)
}

// personGit runs git in dir on the machine as the person would, bounded.
func personGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@x")
	out, err := cmd.CombinedOutput()
	t.Logf("person: git %v in %s: %v %s", args, dir, err, out)
}

// Whatever a contained command leaves in a git config file (a repository
// it made, one inside it, a worktree's, a file the person's config
// includes), only inert settings stay; the rest is taken out and named
// in the result (key, file, why), and the person's next ordinary git
// there (fetch, status, an alias) runs nothing the command planted.
func TestSealGitConfigAllowList(t *testing.T) {
	cases := []struct {
		name   string
		script string
		file   string   // the config file judged, relative to the workspace
		gone   []string // what its git config --list must not hold
		kept   []string // what it must still hold
		note   []string // what the result must say
		dir    string   // where the person runs git afterwards
		person [][]string
	}{
		{
			name:   "ext:: remote appended to a new repository's config",
			script: "git init -q vendor/lib && cat >> vendor/lib/.git/config <<'EOF'\n[protocol \"ext\"]\n\tallow = always\n[remote \"origin\"]\n\turl = ext::sh -c touch% MARK\n\tfetch = +refs/heads/*:refs/remotes/origin/*\nEOF",
			file:   "vendor/lib/.git/config",
			gone:   []string{"protocol.ext.allow", "ext::"},
			kept:   []string{"core.bare=false", "remote.origin.fetch=+refs/heads/*:refs/remotes/origin/*"},
			note:   []string{"vendor/lib/.git/config: taken out", "protocol.ext.allow=\"always\"", "remote.origin.url=\"ext::sh -c touch% ", "transport helper"},
			dir:    "vendor/lib", person: [][]string{{"fetch", "origin"}, {"pull"}},
		},
		{
			name:   "a transport helper set by git config, and fd::",
			script: "git init -q vendor/lib && git -C vendor/lib config protocol.allow always && git -C vendor/lib remote add origin 'ext::sh -c touch% MARK' && git -C vendor/lib config remote.origin.pushurl fd::3",
			file:   "vendor/lib/.git/config",
			gone:   []string{"protocol.allow", "ext::", "fd::"},
			note:   []string{"remote.origin.pushurl=\"fd::3\""},
			dir:    "vendor/lib", person: [][]string{{"fetch", "origin"}, {"push", "origin", "HEAD"}},
		},
		{
			name:   "core.worktree outside the workspace",
			script: "git init -q vendor/lib && git -C vendor/lib config core.worktree /root && git -C vendor/lib config http.sslKey /root/.ssh/id_rsa && git -C vendor/lib config init.templateDir /tmp/t && git -C vendor/lib config core.attributesFile /tmp/a",
			file:   "vendor/lib/.git/config",
			gone:   []string{"core.worktree", "http.sslkey", "init.templatedir", "core.attributesfile"},
			note:   []string{"core.worktree=\"/root\" (names a work tree outside the workspace"},
		},
		{
			name:   "include.path to a file the command wrote",
			script: "printf '[core]\\n\\tfsmonitor = touch MARK\\n[alias]\\n\\tst = !touch MARK\\n' > inc.cfg && git init -q vendor/lib && git -C vendor/lib config include.path ../../inc.cfg && git -C vendor/lib config includeIf.gitdir:/.path ../../inc.cfg",
			file:   "vendor/lib/.git/config",
			gone:   []string{"include", "inc.cfg"},
			note:   []string{"include.path", "makes git read another file's settings"},
			dir:    "vendor/lib", person: [][]string{{"status"}, {"st"}},
		},
		{
			name:   "url.insteadOf rewriting to ext::",
			script: "git init -q vendor/lib && git -C vendor/lib remote add origin /nonexistent/up.git && git -C vendor/lib config 'url.ext::sh -c touch% MARK #.insteadOf' /nonexistent/ && git -C vendor/lib config protocol.ext.allow always",
			file:   "vendor/lib/.git/config",
			gone:   []string{"insteadof", "protocol"},
			kept:   []string{"remote.origin.url=/nonexistent/up.git"},
			note:   []string{"rewrites remote URLs"},
			dir:    "vendor/lib", person: [][]string{{"fetch", "origin"}},
		},
		{
			name:   "core.sshCommand with an ssh remote",
			script: "git init -q vendor/lib && git -C vendor/lib remote add origin git@host.invalid:a/b.git && git -C vendor/lib config core.sshCommand 'touch MARK; false'",
			file:   "vendor/lib/.git/config",
			gone:   []string{"sshcommand"},
			kept:   []string{"remote.origin.url=git@host.invalid:a/b.git"},
			dir:    "vendor/lib", person: [][]string{{"fetch", "origin"}},
		},
		{
			name:   "an alias with !, a pager, gpg, diff.external, credential helper",
			script: "git init -q vendor/lib && cd vendor/lib && git config alias.st '!touch MARK' && git config core.pager 'touch MARK' && git config gpg.program 'touch MARK' && git config commit.gpgSign true && git config diff.external 'touch MARK' && git config credential.helper '!touch MARK'",
			file:   "vendor/lib/.git/config",
			gone:   []string{"alias", "pager", "gpg", "external", "credential"},
			dir:    "vendor/lib", person: [][]string{{"st"}, {"-p", "log"}, {"commit", "-q", "--allow-empty", "-m", "x"}, {"diff", "HEAD"}},
		},
		{
			name:   "a submodule's git folder in a new repository",
			script: "git init -q vendor/lib && mkdir -p vendor/lib/.git/modules && git init -q --separate-git-dir vendor/lib/.git/modules/m vendor/lib/m && rm vendor/lib/m/.git && git --git-dir vendor/lib/.git/modules/m config core.fsmonitor 'touch MARK' && git --git-dir vendor/lib/.git/modules/m config core.worktree ../../../m",
			file:   "vendor/lib/.git/modules/m/config",
			gone:   []string{"fsmonitor"},
			kept:   []string{"core.worktree=../../../m"},
			note:   []string{"vendor/lib/.git/modules/m/config: taken out core.fsmonitor"},
		},
		{
			name:   "a submodule's git folder in the person's repository",
			script: "mkdir -p .git/modules && git init -q --separate-git-dir .git/modules/m2 m2 && rm m2/.git && git --git-dir .git/modules/m2 config core.fsmonitor 'touch MARK' && git --git-dir .git/modules/m2 config alias.st '!touch MARK'",
			file:   ".git/modules/m2/config",
			gone:   []string{"fsmonitor", "alias"},
			note:   []string{".git/modules/m2 (a git folder the command made"},
		},
		{
			name: "a linked worktree's config.worktree",
			script: "git init -q vendor/w && git -C vendor/w -c user.name=m -c user.email=m@x commit -q --allow-empty -m x && git -C vendor/w config extensions.worktreeConfig true && " +
				"git -C vendor/w worktree add -q ../wt && git -C vendor/wt config --worktree core.fsmonitor 'touch MARK' && git -C vendor/wt config --worktree alias.st '!touch MARK'",
			file: "vendor/w/.git/worktrees/wt/config.worktree",
			gone: []string{"fsmonitor", "alias"},
			dir:  "vendor/wt", person: [][]string{{"status"}, {"st"}},
		},
		{
			name:   "a worktree added to the person's repository",
			script: "git worktree add -q wt2 && printf '[core]\\n\\tfsmonitor = touch MARK\\n' > .git/worktrees/wt2/config.worktree",
			file:   ".git/worktrees/wt2/config.worktree",
			gone:   []string{"fsmonitor"},
			dir:    "wt2", person: [][]string{{"status"}},
		},
		{
			name:   "config written by python, not git",
			script: "git init -q vendor/py && python3 -c \"open('vendor/py/.git/config','a').write('[remote \\\"o\\\"]\\n\\turl = ext::sh -c touch% MARK\\n[protocol]\\n\\tallow = always\\n[core]\\n\\thooksPath = /tmp\\n')\"",
			file:   "vendor/py/.git/config",
			gone:   []string{"ext::", "protocol", "hookspath"},
			dir:    "vendor/py", person: [][]string{{"fetch", "o"}},
		},
		{
			name:   "the person's repository: config.worktree made with inert and other settings",
			script: "printf '[user]\\n\\temail = m@x\\n[core]\\n\\tpager = touch MARK\\n' > .git/config.worktree",
			file:   ".git/config.worktree",
			gone:   []string{"pager"},
			kept:   []string{"user.email=m@x"},
			note:   []string{".git/config.worktree (the command's inert settings kept", "core.pager"},
		},
		{
			name:   "the person's included file: inert kept, alias out, the person's own kept",
			script: "printf '[user]\\n\\temail = m@x\\n[alias]\\n\\tst = !touch MARK\\n' >> team.gitconfig",
			file:   "team.gitconfig",
			gone:   []string{"alias"},
			kept:   []string{"user.name=team", "user.email=m@x"},
			note:   []string{"team.gitconfig (the command's inert settings kept", "alias.st"},
			dir:    ".", person: [][]string{{"st"}},
		},
		{
			name:   "git -c does not persist",
			script: "git -c core.fsmonitor='touch MARK' -c alias.st='!true' status >/dev/null",
			file:   ".git/config",
			gone:   []string{"fsmonitor", "alias"},
			kept:   []string{"user.name=person", "include.path=../team.gitconfig"},
			dir:    ".", person: [][]string{{"status"}},
		},
		{
			name:   "an ordinary clone-like setup keeps all",
			script: "git init -q vendor/ok && cd vendor/ok && git remote add origin git@github.com:a/b.git && git remote add up https://example.com/b.git && git config branch.main.remote origin && git config branch.main.merge refs/heads/main && git config user.name model && git config pull.rebase true",
			file:   "vendor/ok/.git/config",
			kept:   []string{"remote.origin.url=git@github.com:a/b.git", "remote.up.url=https://example.com/b.git", "branch.main.merge=refs/heads/main", "user.name=model", "pull.rebase=true"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			gitInit(t, tr.ws)
			os.WriteFile(filepath.Join(tr.ws, "team.gitconfig"), []byte("[user]\n\tname = team\n"), 0o644)
			exec.Command("git", "-C", tr.ws, "config", "include.path", "../team.gitconfig").Run()
			tr.policy.ReadOnly = readOnlyUnder(nil, tr.ws, nil, "", tr.policy.WritableRoots())
			s := mustSandbox(t, tr.policy, Bwrap)
			t.Cleanup(s.Close)
			runReleased(t, s, tr.ws, "true") // the first look, before the command
			mark := filepath.Join(tr.root, "ran")
			out, code, notes := runReleased(t, s, tr.ws, strings.ReplaceAll(c.script, "MARK", mark))
			t.Logf("exit %d: %s\nnotes: %q", code, out, notes)
			if code != 0 {
				t.Fatal("the command failed")
			}
			list := gitConfigList(filepath.Join(tr.ws, c.file))
			for _, g := range c.gone {
				if strings.Contains(strings.ToLower(list), strings.ToLower(g)) {
					t.Errorf("%s still holds %q:\n%s", c.file, g, list)
				}
			}
			for _, k := range c.kept {
				if !strings.Contains(list, k) {
					t.Errorf("%s lost %q:\n%s", c.file, k, list)
				}
			}
			j := strings.Join(notes, "\n")
			if len(c.gone) > 0 && c.name != "git -c does not persist" && !strings.Contains(j, "taken out") {
				t.Errorf("nothing reported: %q", notes)
			}
			if len(c.gone) == 0 || c.name == "git -c does not persist" {
				if strings.Contains(j, "taken out") {
					t.Errorf("inert settings reported: %q", notes)
				}
			}
			for _, n := range c.note {
				if !strings.Contains(j, n) {
					t.Errorf("result lacks %q: %q", n, notes)
				}
			}
			for _, args := range c.person {
				personGit(t, filepath.Join(tr.ws, c.dir), args...)
			}
			if _, err := os.Stat(mark); err == nil {
				t.Error("a program the command planted ran on the machine")
			}
		})
	}
}

// BenchmarkSealSkippedScan measures the look for git folders in the
// folders the index skips, per command, with nothing changed: a
// node_modules of 1,000 packages of two folders each, and a Go vendor
// folder of 200 modules three levels down.
func BenchmarkSealSkippedScan(b *testing.B) {
	ws := b.TempDir()
	for i := range 1000 {
		for _, sub := range []string{"lib", "dist"} {
			os.MkdirAll(filepath.Join(ws, "node_modules", "p"+strconv.Itoa(i), sub), 0o755)
		}
	}
	for i := range 200 {
		os.MkdirAll(filepath.Join(ws, "vendor", "github.com", "o"+strconv.Itoa(i%20), "m"+strconv.Itoa(i)), 0o755)
	}
	x := &protectIndex{root: ws}
	x.look()
	x.scanSkipped(false)
	time.Sleep(3 * ctimeSlack) // past the coarse clock's window: folders settle
	x.scanSkipped(true)
	for b.Loop() {
		x.scanSkipped(true)
	}
	w := x.skipWatch()
	b.ReportMetric(float64(len(w.dirs)), "folders")
}

// Git folders in the folders the index skips: one the person had before
// the session keeps its settings (theirs, off the list or not), and is
// kept like any nested repository; one a command makes deep in a
// node_modules past the bound on folders watched is still found.
func TestSealSkippedFolders(t *testing.T) {
	tr := newTree(t)
	gitInit(t, tr.ws)
	mine := filepath.Join(tr.ws, "vendor", "mine")
	os.MkdirAll(mine, 0o755)
	gitInit(t, mine)
	exec.Command("git", "-C", mine, "config", "alias.lg", "!git log --oneline").Run()
	for i := range maxSkippedDirs + 50 {
		os.MkdirAll(filepath.Join(tr.ws, "node_modules", "p"+strconv.Itoa(i)), 0o755)
	}
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	runReleased(t, s, tr.ws, "true")
	mark := filepath.Join(tr.root, "ran")
	script := "git init -q node_modules/p" + strconv.Itoa(maxSkippedDirs+40) + "/deep && git -C node_modules/p" + strconv.Itoa(maxSkippedDirs+40) + "/deep config core.fsmonitor 'touch " + mark + "'; " +
		"printf '[core]\\n\\tfsmonitor = touch " + mark + "\\n' >> vendor/mine/.git/config"
	out, code, notes := runReleased(t, s, tr.ws, script)
	t.Logf("exit %d: %s\nnotes: %q", code, out, notes)
	if l := gitConfigList(filepath.Join(mine, ".git", "config")); !strings.Contains(l, "alias.lg=!git log") || strings.Contains(l, "fsmonitor") {
		t.Errorf("vendor/mine config:\n%s", l)
	}
	deep := filepath.Join(tr.ws, "node_modules", "p"+strconv.Itoa(maxSkippedDirs+40), "deep")
	if l := gitConfigList(filepath.Join(deep, ".git", "config")); strings.Contains(l, "fsmonitor") {
		t.Errorf("the new repository past the bound kept:\n%s", l)
	}
	personGit(t, mine, "status")
	personGit(t, deep, "status")
	if _, err := os.Stat(mark); err == nil {
		t.Error("a program the command planted ran on the machine")
	}
}
