// Package shell runs commands for bash windows: in the foreground with a
// timeout, or as background tasks, each in its own process group (contained
// by the sandbox when it is on), with bounded, redacted output and a
// working directory that follows cd.
package shell

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aci-dev/aci/tools/output"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aci-dev/aci/tools/limits"
	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/sandbox"
)

// RunResult is what a foreground command did.
type RunResult struct {
	Output   string        // merged stdout+stderr in write order, ANSI-stripped, truncated to limit with the note
	Total    int64         // bytes the command wrote
	ExitCode int           // 124 on timeout, 130 when cancelled, 128+n when killed by signal n, -1 if it could not start
	Duration time.Duration // wall time
	TimedOut bool
	Canceled bool   // ctx was cancelled
	Dir      string // working directory after the command (a `cd` sticks)
	// BackgroundEnded says the command left processes running, which were
	// ended when it finished.
	BackgroundEnded bool
	// Containment says why the sandbox likely made the command fail, or "".
	Containment string
	// Limit names the resource limit that stopped the command, with its
	// value, or "".
	Limit string
	// LinksOut are symlinks the command made in the workspace that lead
	// outside it ("name -> target", workspace-relative).
	LinksOut []string
	// ProtectedMoved are protected files the command created where the
	// sandbox could not stop it, moved out of the workspace ("path (moved
	// to ...): why").
	ProtectedMoved []string
	// CwdGone is the working directory that no longer existed, so the
	// command ran in the home folder instead; "" normally.
	CwdGone string
	// NetDenied are the host:port the proxy refused the command.
	NetDenied []string
	// KeptBack are the workspace's secret files the command tried to read,
	// which the sandbox kept back from it (empty to it): sandbox.Grant.Read.
	KeptBack []string
}

// Exit codes of commands that did not end by themselves, as timeout(1) and
// shells report them.
const (
	ExitTimeout  = 124
	ExitCanceled = 130
)

// noninteractiveEnv keeps tools from paging, colouring or prompting: nobody
// is at the command's terminal.
var noninteractiveEnv = []string{
	"TERM=dumb", "NO_COLOR=1", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0",
}

// RunCommand runs command with bash -c in dir ("" = the current directory)
// and waits for it, at most timeout (<= 0: no limit) and until ctx is done.
// A command that times out or is cancelled is killed with its whole process
// group. Output is cut to limit bytes (<= 0: DefaultOutputLimit) and memory
// stays O(limit) whatever the command prints. Dir reports the directory the
// command ended in, so a caller can make `cd` stick by passing it next time.
//
// A non-zero exit or a timeout is a result, not an error; the error is set
// when the command could not start or ctx was cancelled.
func RunCommand(ctx context.Context, command, dir string, timeout time.Duration, limit int) (RunResult, error) {
	return runCommand(ctx, command, dir, timeout, limit, nil, netOpts{})
}

// runCommand is RunCommand contained by sb (nil: not contained), reaching
// the network through net.
func runCommand(ctx context.Context, command, dir string, timeout time.Duration, limit int, sb *sandbox.Sandbox, net netOpts) (RunResult, error) {
	if limit <= 0 {
		limit = output.DefaultOutputLimit
	}
	startDir, err := resolveWorkDir(dir)
	if err != nil {
		return RunResult{ExitCode: -1, Dir: dir}, fmt.Errorf("run command: %w", err)
	}
	res := RunResult{ExitCode: -1, Dir: startDir}
	if err := ctx.Err(); err != nil {
		res.Canceled, res.ExitCode = true, ExitCanceled
		return res, fmt.Errorf("run command: %w", err)
	}
	// The final directory is written by an EXIT trap to a private file. The
	// trap is installed through BASH_ENV so the command text (and with it
	// the line numbers in bash's error messages) stays exactly the user's.
	tmp, err := newRunDir(sb)
	if err != nil {
		return res, fmt.Errorf("run command: %w", err)
	}
	defer os.RemoveAll(tmp)
	pwdFile := filepath.Join(tmp, "pwd")
	rcFile := filepath.Join(tmp, "rc")
	// The command's leftovers end with it: its pid namespace ends, or the
	// limits helper ends them. leftFile tells that there were some.
	leftFile := filepath.Join(tmp, "left")
	trapLeft := ""
	if sb.OwnPIDNamespace() {
		trapLeft = leftFile
	}
	if err := os.WriteFile(rcFile, []byte(pwdTrapScript(pwdFile, trapLeft)), 0o600); err != nil {
		return res, fmt.Errorf("run command: %w", err)
	}

	out := output.NewCapture(limit, limit)
	start := time.Now()
	kept := sb.WatchKept()
	p, err := startShellProc(command, startDir, tee(out, net.live, ""), sb, net, []string{tmp}, leftFile, "BASH_ENV="+rcFile)
	if err != nil {
		kept()
		return res, fmt.Errorf("run command: %w", err)
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	var killErr error
	select {
	case <-p.exited:
	case <-expired:
		res.TimedOut = true
		killErr = p.killGroup()
	case <-ctx.Done():
		res.Canceled = true
		killErr = p.killGroup()
	}
	// A foreground run owns everything it started: processes it left in the
	// background would outlive aci. Long-running jobs belong in start.
	// A sandbox's own processes (bwrap's init in the command's pid
	// namespace) end a moment after the command: they get leftoverGrace.
	// In its own pid namespace, what the command left ends with the
	// namespace, which the kernel tears down as bwrap exits; its shell
	// said on the way out whether there was any (leftFile). Waiting for
	// the teardown would only add time.
	leftovers := !res.TimedOut && !res.Canceled && !sb.OwnPIDNamespace() &&
		syscall.Kill(-p.pgid, 0) == nil && !waitGroupGone(p.pgid, leftoverGrace)
	if !res.TimedOut && !res.Canceled && sb.OwnPIDNamespace() {
		p.releaseNow()
	}
	if leftovers {
		killErr = p.killGroup()
	}
	p.finish()
	if !res.TimedOut && !res.Canceled {
		_, err := os.Stat(leftFile)
		leftovers = leftovers || err == nil
	}
	res.Duration = time.Since(start)
	res.Total = out.Total()
	res.Output = net.secrets.Redact(out.Text(limit))
	res.ExitCode = p.exitCode()
	if b, err := os.ReadFile(pwdFile); err == nil {
		if d := strings.TrimSuffix(string(b), "\n"); d != "" {
			res.Dir = d
		}
	}
	res.NetDenied = p.denied
	res.Limit = p.limitHit(res.Output)
	res.ProtectedMoved = p.created
	res.KeptBack = kept()
	if !res.TimedOut && !res.Canceled && res.Limit == "" {
		res.Containment = sb.Explain(res.Output, res.ExitCode, startDir)
		if res.Containment == "" && res.ExitCode != 0 {
			res.Containment = netNote(p.denied)
		}
	}
	res.BackgroundEnded = leftovers
	switch {
	case res.TimedOut:
		res.ExitCode = ExitTimeout
	case res.Canceled:
		res.ExitCode = ExitCanceled
		return res, fmt.Errorf("run command: %w", errors.Join(context.Cause(ctx), killErr))
	}
	if err := errors.Join(killErr, p.waitErr); err != nil {
		return res, fmt.Errorf("run command: %w", err)
	}
	return res, nil
}

// tee is out, and the writer live gives for the command (taskID: a
// background task's), which sees each piece of output as it is read.
func tee(out *output.Capture, live func(string) io.Writer, taskID string) io.Writer {
	if live == nil {
		return out
	}
	w := live(taskID)
	if w == nil {
		return out
	}
	return &teeWriter{out: out, live: w}
}

type teeWriter struct {
	out  *output.Capture
	live io.Writer
}

func (t *teeWriter) Write(p []byte) (int, error) {
	t.out.Write(p)
	t.live.Write(p)
	return len(p), nil
}

func (t *teeWriter) Close() error {
	if c, ok := t.live.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// pwdTrapScript is sourced by bash before the command (BASH_ENV). It unsets
// BASH_ENV at once so bash scripts the command runs do not inherit the trap,
// and records the final directory without touching output or exit status.
// With leftFile, bash runs as pid 2 of its own pid namespace, and the trap
// also notes whether any process but bwrap's init and itself is still
// alive there (with builtins only: nothing it starts would count).
func pwdTrapScript(pwdFile, leftFile string) string {
	restore := "unset BASH_ENV\n"
	if orig, ok := os.LookupEnv("BASH_ENV"); ok {
		restore = "BASH_ENV=" + quoteForBash(orig) + "\n. \"$BASH_ENV\"\n"
	}
	trap := "pwd -P >| " + quoteForBash(pwdFile) + " 2>/dev/null"
	if leftFile != "" {
		trap += "; for __aci_p in /proc/[0-9]*; do case ${__aci_p#/proc/} in 1|$$) continue;; esac; " +
			"read -r __aci_s < \"$__aci_p/stat\" 2>/dev/null || continue; case ${__aci_s##*) } in Z*|X*) continue;; esac; " +
			": >| " + quoteForBash(leftFile) + " 2>/dev/null; break; done"
	}
	return restore + "trap " + quoteForBash(trap) + " EXIT\n"
}

// quoteForBash quotes s as one word for bash.
func quoteForBash(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func resolveWorkDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	return filepath.Abs(dir)
}

// Grace periods: how long a killed group gets between SIGTERM and SIGKILL,
// how long output may still drain after the shell exited (a background
// grandchild may hold the pipe open forever), and how long to wait for a
// SIGKILLed group to be gone.
const (
	termGrace  = 500 * time.Millisecond
	drainGrace = 500 * time.Millisecond
	killWait   = 5 * time.Second
	// leftoverGrace is how long a finished foreground command's group may
	// take to empty before what is left counts as left behind.
	leftoverGrace = 100 * time.Millisecond
)

// shellProc is a running bash -c in its own session and process group, its merged output
// going through one pipe into a Capture.
type shellProc struct {
	run     *limits.Run     // the command's resource limits
	release func() []string // gives back what the sandbox set up for the command
	// releasing brings what release gave back, when it was started at
	// the command's exit (releaseNow).
	releasing chan []string
	created   []string // protected files the command made, moved away
	wait      func() (syscall.WaitStatus, error)
	status    *syscall.WaitStatus // set once exited is closed, unless waiting failed
	link      *sandbox.Link       // the way to the proxy; nil: none
	served    *netproxy.Served    // the proxy serving link
	denied    []string            // what the proxy refused; set by finish
	pgid      int
	r         *os.File
	readDone  chan struct{} // the reader stopped
	exited    chan struct{} // bash was reaped; waitErr and state are set
	waitErr   error         // a failure of Wait itself, not a non-zero exit
	once      sync.Once
}

// startShellProc starts command with stdin /dev/null and stdout and stderr on
// the same pipe, so the output keeps the order it was written in. sb (nil:
// none) contains it, with writable also writable for it; its environment
// never holds credentials.
//
// Under bwrap the command starts inside the session's sandbox
// (startInSession). writable is the command's policy delta: paths other
// than its run folder (a grant for this command alone) send it the
// one-shot way, startOneShot, as does a machine where the session's
// sandbox cannot run. Its command line, outermost first: the limits helper
// (aci re-run: it joins the cgroups, sets the rlimits and execs the rest,
// keeping the link's fds 3 and 4), bwrap, the network step (aci again,
// from fd 4: it hands its namespace's proxy port to aci and execs), bash.
// Both helpers exec, so the pid and exit status are bash's. Where there is
// no pid namespace the limits helper stays as bash's parent instead, but
// there the link has no fds (Landlock) or there is no link.
func startShellProc(command, dir string, out io.Writer, sb *sandbox.Sandbox, net netOpts, writable []string, leftFile string, extraEnv ...string) (*shellProc, error) {
	sandbox.ProtectProcess()
	// No credential variables, and no variable holding a value aci knows
	// is secret (its key, what the workspace's .env files hold).
	env := net.secrets.WithoutValues(sandbox.Environ(os.Environ()))
	env = append(append(append(env, noninteractiveEnv...), sb.Env()...), extraEnv...)
	if p, err := startInSession(command, dir, out, sb, net, writable, env); p != nil || err != nil {
		return p, err
	}
	return startOneShot(command, dir, out, sb, net, writable, leftFile, env)
}

// link is the command's link to the proxy in sb, nil when its network
// goes through no proxy.
func (n netOpts) link(sb *sandbox.Sandbox) (*sandbox.Link, error) {
	if n.proxy == nil {
		return nil, nil
	}
	l, err := sb.NewLink()
	if err != nil {
		return nil, fmt.Errorf("contain command: %w", err)
	}
	return l, nil
}

// startOneShot starts the command with a sandbox of its own (see
// startShellProc): the path of commands that the session's sandbox does
// not take.
func startOneShot(command, dir string, out io.Writer, sb *sandbox.Sandbox, net netOpts, writable []string, leftFile string, env []string) (*shellProc, error) {
	link, err := net.link(sb)
	if err != nil {
		return nil, err
	}
	argv, release, err := sb.CommandGranted([]string{"bash", "-c", command}, dir, link, net.grant, writable...)
	if err != nil {
		link.Close()
		return nil, fmt.Errorf("contain command: %w", err)
	}
	// Without a pid namespace to end them, the limits helper stays as the
	// command's parent and ends what it leaves behind.
	run, err := limits.Current().Start(argv, !sb.OwnPIDNamespace(), leftFile)
	if err != nil {
		release()
		link.Close()
		return nil, err
	}
	argv = run.Argv()
	r, w, err := os.Pipe()
	if err != nil {
		run.Close()
		release()
		link.Close()
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	if link != nil {
		cmd.Env = append(cmd.Env, proxyEnv(link.Port())...)
		cmd.ExtraFiles = link.ExtraFiles()
	}
	cmd.Stdout, cmd.Stderr = w, w // an *os.File: the child writes straight to the pipe
	// A new session is also a new process group (pgid = pid) that can be
	// killed as a whole, and it has no controlling terminal: a command that
	// opens /dev/tty (sudo, ssh, git asking for a password) fails at once
	// instead of stopping on, or reading from, the user's terminal.
	cmd.SysProcAttr = procAttr()
	dieWithAci(cmd.SysProcAttr, sb)
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		run.Close()
		release()
		link.Close()
		return nil, fmt.Errorf("start bash in %s: %w", dir, err)
	}
	w.Close() // only the children hold the write end now: EOF when they are all gone
	wait := func() (syscall.WaitStatus, error) {
		err := cmd.Wait()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return 0, err
		}
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		return ws, nil
	}
	return runShellProc(&shellProc{run: run, release: release, wait: wait, pgid: cmd.Process.Pid, r: r, link: link}, out, net), nil
}

// runShellProc sets a started command's output reading, proxy serving
// and waiting going.
func runShellProc(p *shellProc, out io.Writer, net netOpts) *shellProc {
	p.readDone, p.exited = make(chan struct{}), make(chan struct{})
	if p.link != nil {
		p.link.Started()
		p.served = net.proxy.Serve(p.link.Listener(), net.ask)
	}
	go func() {
		defer close(p.readDone)
		if c, ok := out.(io.Closer); ok {
			defer c.Close() // a live reader learns the output ended
		}
		buf := make([]byte, 32<<10)
		for {
			n, err := p.r.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer close(p.exited)
		ws, err := p.wait()
		if err != nil {
			p.waitErr = err
			return
		}
		p.status = &ws
	}()
	return p
}

// proxyEnv points the usual proxy variables at the link's port on the
// command's loopback. Node's fetch reads them only when told to.
func proxyEnv(port int) []string {
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	env := []string{"NODE_USE_ENV_PROXY=1"}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+url, strings.ToLower(k)+"="+url)
	}
	const local = "localhost,127.0.0.1,::1"
	return append(env, "NO_PROXY="+local, "no_proxy="+local)
}

// netNote says why a failed command may have failed for want of network.
func netNote(denied []string) string {
	if len(denied) == 0 {
		return ""
	}
	return "contained: the network proxy refused " + strings.Join(denied, ", ") +
		" (not on the allow list, and not allowed by the person)"
}
