package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// gitAt runs git in dir on the machine, as the person would.
func gitAt(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=p@x", "-c", "user.name=p"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("git %v in %s: %v %s", args, dir, err, out)
	}
	return string(out)
}

// plantIn is the end of each route: a post-commit hook and an fsmonitor
// in git folder g, each leaving mark when it runs.
func plantIn(g, mark string) string {
	return "printf '#!/bin/sh\\ntouch " + mark + "\\n' > " + g + "/hooks/post-commit; chmod +x " + g + "/hooks/post-commit; " +
		"printf '[core]\\n\\tfsmonitor = touch " + mark + "\\n[alias]\\n\\tst = !touch " + mark + "\\n' >> " + g + "/config"
}

// Whatever route a contained command takes to change what git runs in
// the workspace (its own repository, a nested one at any depth, a
// submodule, a linked worktree's), the git folder is as it was after the
// command, the result says why the command failed or what was put back,
// and the person's next git status, git st and git commit on the machine
// run nothing it planted.
func TestE2ESealedGitRoutes(t *testing.T) {
	routes := []struct {
		name, script string
		repo         string // the repository the person runs git in, relative to the workspace
		gitDir       string // its git folder, relative to the workspace
	}{
		{"rename of .git, copy back", "mv .git .gitx && cp -a .gitx .git; PLANT(.git)", ".", ".git"},
		{"nested: rename of the parent folder, copy back", "mv sub subx && cp -a subx sub && rm -rf subx; PLANT(sub/repo/.git)", "sub/repo", "sub/repo/.git"},
		{"nested: git init in a renamed parent's place", "mv sub subx && mkdir -p sub/repo && git -C sub/repo init -q && PLANT(sub/repo/.git)", "sub/repo", "sub/repo/.git"},
		{"nested: tar extract over it", "tar -cf /tmp/t.tar sub && mkdir /tmp/u && tar -C /tmp/u -xf /tmp/t.tar && PLANT(/tmp/u/sub/repo/.git) && mv sub subx && tar -C /tmp/u -cf /tmp/t2.tar sub && tar -xf /tmp/t2.tar", "sub/repo", "sub/repo/.git"},
		{"nested: python script", `python3 -c "
import shutil, os
os.rename('sub', 'sx'); shutil.copytree('sx', 'sub', symlinks=True)
open('sub/repo/.git/config','a').write('[core]\n\tfsmonitor = touch MARK\n')
open('sub/repo/.git/hooks/post-commit','w').write('#!/bin/sh\ntouch MARK\n'); os.chmod('sub/repo/.git/hooks/post-commit', 0o755)"`, "sub/repo", "sub/repo/.git"},
		{"nested: node script", `node -e "
const fs = require('fs');
fs.renameSync('sub', 'sn'); fs.cpSync('sn', 'sub', {recursive: true});
fs.appendFileSync('sub/repo/.git/config', '[core]\n\tfsmonitor = touch MARK\n');
fs.writeFileSync('sub/repo/.git/hooks/post-commit', '#!/bin/sh\ntouch MARK\n', {mode: 0o755});"`, "sub/repo", "sub/repo/.git"},
		{"nested: git -C after a rename", "mv sub s4 && cp -a s4 sub && git -C sub/repo config core.fsmonitor 'touch MARK' && git -C sub/repo config alias.st '!touch MARK'", "sub/repo", "sub/repo/.git"},
		{"deeper: rename three folders up", "mv a ax && cp -a ax a && PLANT(a/b/c/deep/.git)", "a/b/c/deep", "a/b/c/deep/.git"},
		{"submodule: its git folder", "git -C mod config core.fsmonitor 'touch MARK'; PLANT(.git/modules/mod)", "mod", ".git/modules/mod"},
	}
	for _, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			work, home := t.TempDir(), t.TempDir()
			containedOrSkip(t, work)
			mark := filepath.Join(t.TempDir(), "ran")
			for _, d := range []string{".", "sub/repo", "a/b/c/deep", "modsrc"} {
				os.MkdirAll(filepath.Join(work, d), 0o755)
				if d == "modsrc" {
					continue
				}
				gitAt(t, filepath.Join(work, d), "init", "-q", ".")
				gitAt(t, filepath.Join(work, d), "commit", "-q", "--allow-empty", "-m", "first")
			}
			modsrc := filepath.Join(t.TempDir(), "modsrc")
			os.MkdirAll(modsrc, 0o755)
			gitAt(t, modsrc, "init", "-q", ".")
			gitAt(t, modsrc, "commit", "-q", "--allow-empty", "-m", "first")
			gitAt(t, work, "-c", "protocol.file.allow=always", "submodule", "add", "-q", modsrc, "mod")
			gitAt(t, work, "commit", "-q", "-m", "sub")
			cfgBefore, _ := os.ReadFile(filepath.Join(work, r.gitDir, "config"))

			script := strings.ReplaceAll(r.script, "MARK", mark)
			if i := strings.Index(script, "PLANT("); i >= 0 {
				j := strings.Index(script[i:], ")")
				script = script[:i] + plantIn(script[i+6:i+j], mark) + script[i+j+1:]
			}
			srv := fakeai.New(t,
				act(openBash),
				runCall(script),
				runCall("echo next"),
				fakeai.Reply{Content: "done"},
			)
			res := aci(t, work, srv, "go", []string{"HOME=" + home}, "--yes")
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			got := resultOf(t, srv, "call_2_1")
			// The result, and the window showing the output and its hints.
			reqs := srv.Requests()
			for _, m := range reqs[len(reqs)-1].Messages {
				got += "\n" + m.Content
			}
			if !strings.Contains(got, "put back as it was") && !strings.Contains(got, "cannot be renamed, replaced or removed") &&
				!strings.Contains(got, "Read-only file system") {
				t.Errorf("the result says nothing of what was refused or put back: %q", got)
			}
			if b, _ := os.ReadFile(filepath.Join(work, r.gitDir, "config")); string(b) != string(cfgBefore) {
				t.Errorf("%s/config after the command:\n%s\nwas:\n%s", r.gitDir, b, cfgBefore)
			}
			if _, err := os.Lstat(filepath.Join(work, r.gitDir, "hooks", "post-commit")); err == nil {
				t.Error("the planted hook is still there")
			}
			personsNextGit(t, mark, filepath.Join(work, r.repo))
		})
	}
}

// personsNextGit runs what the person would next in each repository
// (status, an alias, add, commit) and fails the test if that ran what a
// command planted (mark appears).
func personsNextGit(t *testing.T, mark string, repos ...string) {
	t.Helper()
	for _, dir := range repos {
		gitAt(t, dir, "status")
		gitAt(t, dir, "st")
		os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x"), 0o644)
		gitAt(t, dir, "add", "f.txt")
		gitAt(t, dir, "commit", "-q", "-m", "next")
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("what the command planted ran on the machine at the person's next git")
	}
}

// Started in a linked worktree, a contained command can change neither
// the main repository's config and hooks, which the worktree's git obeys,
// nor the worktree's own git folder, nor the .git file that points there;
// the person's next git in the worktree and in the main repository runs
// nothing it planted.
func TestE2ESealedWorktree(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	containedOrSkip(t, root)
	main, wt := filepath.Join(root, "main"), filepath.Join(root, "wt")
	os.MkdirAll(main, 0o755)
	gitAt(t, main, "init", "-q", ".")
	gitAt(t, main, "commit", "-q", "--allow-empty", "-m", "first")
	gitAt(t, main, "worktree", "add", "-q", wt)
	mark := filepath.Join(t.TempDir(), "ran")
	common := filepath.Join(main, ".git")
	before, _ := os.ReadFile(filepath.Join(common, "config"))
	pointer, _ := os.ReadFile(filepath.Join(wt, ".git"))
	script := "g=$(git rev-parse --git-common-dir); w=$(git rev-parse --git-dir); " +
		strings.ReplaceAll(plantIn("$g", mark), "$g", `"$g"`) + "; " + strings.ReplaceAll(plantIn("$w", mark), "$w", `"$w"`) +
		"; git config extensions.worktreeConfig true; printf '[core]\\n\\tfsmonitor = touch " + mark + "\\n' > \"$w/config.worktree\"" +
		"; mv \"$g\" \"$g.x\"; echo 'gitdir: /tmp/elsewhere' > .git"
	srv := fakeai.New(t,
		act(openBash),
		runCall(script),
		fakeai.Reply{Content: "done"},
	)
	if r := aci(t, wt, srv, "go", []string{"HOME=" + home}, "--yes"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	t.Logf("result: %.600s", resultOf(t, srv, "call_2_1"))
	if b, _ := os.ReadFile(filepath.Join(common, "config")); string(b) != string(before) {
		t.Errorf("the main repository's config changed:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(wt, ".git")); string(b) != string(pointer) {
		t.Errorf("the worktree's .git file changed: %q", b)
	}
	personsNextGit(t, mark, wt, main)
}

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
				act(openBash),
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
