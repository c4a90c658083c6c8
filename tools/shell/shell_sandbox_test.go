//go:build linux

package shell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/tools/secrets"

	"golang.org/x/sys/unix"

	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/sandbox"
)

// bwrapOneShot stands for bwrap without the session's sandbox: each
// command with a bwrap of its own (sandbox.Options.OneShot), the path
// commands with a policy delta take.
const bwrapOneShot sandbox.Kind = "bwrap-oneshot"

var sandboxKinds = []sandbox.Kind{sandbox.Bwrap, bwrapOneShot, sandbox.Landlock}

// sandboxOptions are the options that make a Sandbox of kind k.
func sandboxOptions(k sandbox.Kind) sandbox.Options {
	if k == bwrapOneShot {
		return sandbox.Options{Force: sandbox.Bwrap, OneShot: true}
	}
	return sandbox.Options{Force: k}
}

// containedShell is a Shell contained by kind in a fresh workspace, with a
// fake home beside it that commands must not write. It skips the test when
// the machine truly cannot run kind.
func containedShell(t *testing.T, kind sandbox.Kind) (sh *Shell, ws, home string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, home = filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{ws, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("orig\n"), 0o644)
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("KEY-MATERIAL\n"), 0o600)
	sb, err := sandbox.New(sandbox.Policy{Workspace: []string{ws}, Hidden: []string{filepath.Join(home, ".ssh")}}, sandboxOptions(kind))
	if err != nil {
		t.Skipf("%s unavailable on this machine, not tested: %v", kind, err)
	}
	sh, err = NewContainedShell(ws, sb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sh.Close)
	if !sh.Contained() {
		t.Fatal("shell not contained")
	}
	return sh, ws, home
}

// underTmp reports whether, for kind k, dir lies in the private /tmp
// that stands in for the machine's.
func underTmp(k sandbox.Kind, dir string) bool {
	return (k == sandbox.Bwrap || k == bwrapOneShot) && strings.HasPrefix(dir, "/tmp/")
}

// survivors lists live processes whose command line holds pattern (a
// unique sleep duration), zombies excluded.
func survivors(t *testing.T, pattern string) []string {
	t.Helper()
	out, _ := exec.Command("pgrep", "-f", pattern).Output()
	var live []string
	for _, pid := range strings.Fields(string(out)) {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		if st, _, ok := parseProcStat(string(b)); ok && st != 'Z' && st != 'X' {
			if cmd, _ := os.ReadFile("/proc/" + pid + "/cmdline"); !strings.Contains(string(cmd), "pgrep") {
				live = append(live, pid+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
			}
		}
	}
	return live
}

// fifoIn makes a FIFO in dir and returns what the command writes to it.
func fifoIn(t *testing.T, dir string) (string, <-chan string) {
	t.Helper()
	path := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(path)
		ch <- string(b)
	}()
	return path, ch
}

func TestContainedShell(t *testing.T) {
	ctx := context.Background()
	for _, k := range sandboxKinds {
		t.Run(string(k), func(t *testing.T) {
			sh, ws, home := containedShell(t, k)
			t.Run("sticky cd", func(t *testing.T) {
				res, err := sh.Run(ctx, "mkdir -p sub/deeper && cd sub/deeper && echo made > f", 0, 1000)
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("exit %d err %v output %q", res.ExitCode, err, res.Output)
				}
				if want := filepath.Join(ws, "sub", "deeper"); sh.Dir() != want {
					t.Errorf("dir = %q, want %q", sh.Dir(), want)
				}
				res, _ = sh.Run(ctx, "cat f; cd "+quoteForBash(ws), 0, 1000)
				if res.Output != "made\n" || sh.Dir() != ws {
					t.Errorf("output %q dir %q", res.Output, sh.Dir())
				}
			})
			t.Run("write outside refused with a note", func(t *testing.T) {
				res, _ := sh.Run(ctx, "echo pwned >> "+quoteForBash(filepath.Join(home, ".bashrc")), 0, 1000)
				// Under bwrap a home under /tmp (as here) lies in the private
				// /tmp, where the write lands harmlessly.
				if (res.ExitCode == 0 && !underTmp(k, home)) || (res.ExitCode != 0 && !strings.Contains(res.Containment, "contained (")) {
					t.Errorf("exit %d output %q", res.ExitCode, res.Output)
				}
				if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(b) != "orig\n" {
					t.Errorf("~/.bashrc = %q", b)
				}
				res, _ = sh.Run(ctx, "cat "+quoteForBash(filepath.Join(home, ".ssh", "id_ed25519")), 0, 1000)
				if res.ExitCode == 0 || strings.Contains(res.Output, "KEY-MATERIAL") || !strings.Contains(res.Containment, "secret store") {
					t.Errorf("key read: exit %d output %q", res.ExitCode, res.Output)
				}
			})
			t.Run("uncontained on request", func(t *testing.T) {
				out := filepath.Join(home, "allowed")
				res, err := sh.Run(ctx, "echo yes > "+quoteForBash(out), 0, 1000, Uncontained())
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("exit %d err %v output %q", res.ExitCode, err, res.Output)
				}
				if b, _ := os.ReadFile(out); string(b) != "yes\n" {
					t.Errorf("uncontained write = %q", b)
				}
			})
			t.Run("timeout kills the group", func(t *testing.T) {
				res, err := sh.Run(ctx, "sleep 31.01 & sleep 31.01; wait", time.Second, 1000)
				if err != nil || !res.TimedOut || res.ExitCode != ExitTimeout {
					t.Errorf("timedout %v exit %d err %v", res.TimedOut, res.ExitCode, err)
				}
				if live := survivors(t, "sleep 31.01"); len(live) > 0 {
					t.Errorf("survivors: %q", live)
				}
			})
			t.Run("cancel kills the group", func(t *testing.T) {
				fifo, started := fifoIn(t, ws)
				defer os.Remove(fifo)
				cctx, cancel := context.WithCancel(ctx)
				go func() { <-started; cancel() }()
				res, err := sh.Run(cctx, "sleep 31.02 & echo go > "+quoteForBash(fifo)+"; sleep 31.02; wait", 0, 1000)
				if !errors.Is(err, context.Canceled) || !res.Canceled || res.ExitCode != ExitCanceled {
					t.Errorf("canceled %v exit %d err %v", res.Canceled, res.ExitCode, err)
				}
				if live := survivors(t, "sleep 31.02"); len(live) > 0 {
					t.Errorf("survivors: %q", live)
				}
			})
			t.Run("leftovers ended", func(t *testing.T) {
				res, err := sh.Run(ctx, "sleep 31.03 & echo hi", 10*time.Second, 0)
				if err != nil || !res.BackgroundEnded {
					t.Errorf("err %v output %q", err, res.Output)
				}
				if live := survivors(t, "sleep 31.03"); len(live) > 0 {
					t.Errorf("survivors: %q", live)
				}
			})
			t.Run("bounded capture", func(t *testing.T) {
				res, err := sh.Run(ctx, "yes | head -c 20000000", 0, 30000)
				if err != nil || res.Total != 20000000 || len(res.Output) > 31000 || !strings.Contains(res.Output, "truncated") {
					t.Errorf("total %d len %d err %v", res.Total, len(res.Output), err)
				}
			})
			t.Run("background task and kill", func(t *testing.T) {
				fifo, started := fifoIn(t, ws)
				defer os.Remove(fifo)
				task, err := sh.Start("echo running; sleep 31.04 & echo go > "+quoteForBash(fifo)+"; sleep 31.04; wait", 1000)
				if err != nil {
					t.Fatal(err)
				}
				<-started
				if task.State() != TaskRunning {
					t.Errorf("state %s", task.State())
				}
				if err := task.Kill(); err != nil {
					t.Fatal(err)
				}
				if task.State() != TaskKilled || !strings.Contains(task.Output(1000), "running") {
					t.Errorf("state %s output %q", task.State(), task.Output(1000))
				}
				if live := survivors(t, "sleep 31.04"); len(live) > 0 {
					t.Errorf("survivors: %q", live)
				}
				done, err := sh.Start("echo finished > done.txt; exit 3", 1000)
				if err != nil {
					t.Fatal(err)
				}
				<-done.Done()
				if done.State() != TaskFailed || done.ExitCode() != 3 {
					t.Errorf("state %s exit %d", done.State(), done.ExitCode())
				}
				if b, _ := os.ReadFile(filepath.Join(ws, "done.txt")); string(b) != "finished\n" {
					t.Errorf("task wrote %q", b)
				}
				denied, err := sh.Start("echo x > "+quoteForBash(filepath.Join(home, ".profile")), 1000)
				if err != nil {
					t.Fatal(err)
				}
				<-denied.Done()
				if !underTmp(k, home) && (denied.State() != TaskFailed || !strings.Contains(denied.Containment(), "contained (")) {
					t.Errorf("state %s output %q", denied.State(), denied.Output(1000))
				}
			})
			t.Run("credentials and redaction", func(t *testing.T) {
				const key = "sk-test-0123456789abcdefXYZ"
				t.Setenv("OPENAI_API_KEY", key)
				res, _ := sh.Run(ctx, "echo \"[$OPENAI_API_KEY]\"; echo "+key+"; printf %s "+key+" | base64", 0, 1000, Secrets(secrets.NewRedactor(key)))
				if strings.Contains(res.Output, key) || !strings.Contains(res.Output, "[]") || strings.Count(res.Output, secrets.Redacted) != 2 {
					t.Errorf("output %q", res.Output)
				}
			})
		})
	}
}

// BenchmarkContainedRun measures what containment adds to one command:
// compare the none, bwrap and landlock figures.
func BenchmarkContainedRun(b *testing.B) {
	for _, k := range []sandbox.Kind{sandbox.None, sandbox.Bwrap, sandbox.Landlock} {
		b.Run(string(k), func(b *testing.B) {
			sh := benchShell(b, k)
			cpu := cpuTime()
			runTrue(b, sh)
			reportCPU(b, cpu)
		})
		// With the network contained: the namespace, the link to the
		// proxy and (bwrap) the first step in front of the command.
		b.Run(string(k)+"+proxy", func(b *testing.B) {
			sh := benchShell(b, k)
			if !sh.Sandbox().NetContained() {
				b.Skipf("%s does not contain the network here", k)
			}
			net := Network(netproxy.New(netproxy.Policy{Allow: netproxy.Builtin()}), nil)
			cpu := cpuTime()
			runTrue(b, sh, net)
			reportCPU(b, cpu)
		})
	}
}

// benchShell is a shell contained by kind k, with the default policy on
// a fresh workspace; the benchmark skips where k is unavailable.
func benchShell(b *testing.B, k sandbox.Kind) *Shell {
	ws := b.TempDir()
	sb, err := sandbox.New(sandbox.DefaultPolicy(ws), sandbox.Options{Force: k})
	if err != nil {
		b.Skipf("%s unavailable: %v", k, err)
	}
	sh, err := NewContainedShell(ws, sb)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(sh.Close)
	return sh
}

// runTrue runs the command true in sh for each of the benchmark's loops.
func runTrue(b *testing.B, sh *Shell, opts ...RunOption) {
	for b.Loop() {
		if res, err := sh.Run(context.Background(), "true", 0, 1000, opts...); err != nil || res.ExitCode != 0 {
			b.Fatalf("exit %d err %v %q", res.ExitCode, err, res.Output)
		}
	}
}

// cpuTime is the CPU time (user and system) this process and its waited-for
// children have used. On a loaded machine it shows what a command costs
// better than wall time, which includes waiting for a core.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// reportCPU reports the CPU time per operation since start, in ms.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// Even an uncontained command cannot read aci's starting environment (the
// API key) from /proc: aci is non-dumpable once it has run a command.
func TestRunLeavesAciNonDumpable(t *testing.T) {
	if _, err := RunCommand(context.Background(), "true", t.TempDir(), 0, 100); err != nil {
		t.Fatal(err)
	}
	d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil || d != 0 {
		t.Errorf("dumpable = %d, %v", d, err)
	}
	if os.Geteuid() == 0 {
		return // root keeps CAP_SYS_PTRACE when uncontained: nothing more to check
	}
	res, _ := RunCommand(context.Background(), "cat /proc/$PPID/environ", t.TempDir(), 0, 100000)
	if res.ExitCode == 0 || strings.Contains(res.Output, "PATH=") {
		t.Errorf("read aci's environ: exit %d %q", res.ExitCode, res.Output)
	}
}
