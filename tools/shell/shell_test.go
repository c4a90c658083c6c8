package shell

import (
	"context"
	"errors"
	"fmt"
	"github.com/aci-dev/aci/tools/output"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// liveGroupProcs lists the processes of group pgid that still run (zombies
// excluded), asking pgrep rather than the code under test.
func liveGroupProcs(t *testing.T, pgid int) []string {
	t.Helper()
	out, _ := exec.Command("pgrep", "-g", strconv.Itoa(pgid)).Output()
	var live []string
	for _, pid := range strings.Fields(string(out)) {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if errors.Is(err, fs.ErrNotExist) {
			continue // exited since pgrep saw it
		} else if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] != "Z" {
			live = append(live, pid+" "+s)
		}
	}
	return live
}

// leadingInt reads the number at the start of s (a pgid echoed by $$).
func leadingInt(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.Fields(s + " x")[0])
	if err != nil {
		t.Fatalf("no number at the start of %q", s)
	}
	return n
}

// startFIFO makes a FIFO the command can write to, and returns a channel
// with what it wrote: a way to know the command has started, without timing.
func startFIFO(t *testing.T) (string, <-chan string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(path) // blocks until the command opens and closes it
		ch <- string(b)
	}()
	return path, ch
}

func TestRunExitCodes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		cmd  string
		code int
	}{
		{"true", 0},
		{"exit 7", 7},
		{"false", 1},
		{"no-such-command-aci", 127},
		{"kill -TERM $$", 128 + int(syscall.SIGTERM)},
		{"(exit 3); echo after", 0},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			res, err := RunCommand(ctx, tc.cmd, t.TempDir(), 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tc.code || res.TimedOut || res.Canceled {
				t.Errorf("exit %d (timedout %v canceled %v), want %d; output %q",
					res.ExitCode, res.TimedOut, res.Canceled, tc.code, res.Output)
			}
		})
	}
}

func TestRunOutput(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, cmd, want string
	}{
		{"merged in order", "echo a; echo b >&2; echo c", "a\nb\nc\n"},
		{"stdin is empty", "cat; read x; echo \"read=$?\"", "read=1\n"},
		{"environment", `echo "$TERM $NO_COLOR $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT ${BASH_ENV-unset}"`, "dumb 1 cat cat 0 unset\n"},
		{"ansi stripped", `printf '\033[1;31merror\033[0m\n'`, "error\n"},
		{"syntax error names line 1", "echo (", "line 1"},
		{"no terminal", "{ : </dev/tty; } 2>/dev/null && echo tty || echo no-tty", "no-tty\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := RunCommand(ctx, tc.cmd, t.TempDir(), 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if res.Output != tc.want && !(strings.HasPrefix(tc.name, "syntax") && strings.Contains(res.Output, tc.want)) {
				t.Errorf("output %q, want %q", res.Output, tc.want)
			}
			if strings.Contains(res.Output, "aci-run") || strings.Contains(res.Output, "trap") {
				t.Errorf("wrapper leaks into output: %q", res.Output)
			}
			if res.Total < int64(len(res.Output))-20 {
				t.Errorf("Total %d for output %q", res.Total, res.Output)
			}
		})
	}
}

func TestRunNoDir(t *testing.T) {
	res, err := RunCommand(context.Background(), "true", filepath.Join(t.TempDir(), "gone"), 0, 100)
	if err == nil || res.ExitCode != -1 {
		t.Errorf("exit %d, err %v; want -1 and an error", res.ExitCode, err)
	}
}

func TestRunStickyDir(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	res, err := RunCommand(ctx, "cd sub; echo moved; exit 3", root, 0, 100)
	if err != nil || res.Dir != sub || res.ExitCode != 3 || res.Output != "moved\n" {
		t.Fatalf("cd then exit 3: dir %q exit %d output %q err %v", res.Dir, res.ExitCode, res.Output, err)
	}
	res, _ = RunCommand(ctx, "bash -c 'cd /'; cd /; cd - >/dev/null", root, 0, 100)
	if res.Dir != root {
		t.Errorf("nested bash moved the dir: %q", res.Dir)
	}

	sh, err := NewShell(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sh.Close)
	if res, _ = sh.Run(ctx, "cd sub", 0, 100); res.Output != "" || sh.Dir() != sub {
		t.Fatalf("after cd: output %q, shell dir %q", res.Output, sh.Dir())
	}
	if res, _ = sh.Run(ctx, "pwd", 0, 100); res.Output != sub+"\n" {
		t.Errorf("pwd after cd = %q, want %q", res.Output, sub)
	}
	if err := os.Remove(sub); err != nil {
		t.Fatal(err)
	}
	res, _ = sh.Run(ctx, "pwd", 0, 1000)
	if res.Output != root+"\n" || res.CwdGone != sub || sh.Dir() != root {
		t.Errorf("after the dir vanished: output %q, shell dir %q", res.Output, sh.Dir())
	}
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	res, err := RunCommand(context.Background(), "echo $(ps -o pgid= $$); sleep 30 & sleep 30; wait", t.TempDir(), time.Second, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != ExitTimeout {
		t.Errorf("timedout %v exit %d output %q", res.TimedOut, res.ExitCode, res.Output)
	}
	if live := liveGroupProcs(t, leadingInt(t, res.Output)); len(live) > 0 {
		t.Errorf("processes of the group survived: %q", live)
	}
}

func TestRunCancelKillsGroup(t *testing.T) {
	fifo, started := startFIFO(t)
	ctx, cancel := context.WithCancel(context.Background())
	echoed := make(chan string, 1)
	go func() {
		echoed <- <-started
		cancel()
	}()
	res, err := RunCommand(ctx, "sleep 30 & echo $(ps -o pgid= $$) > "+quoteForBash(fifo)+"; sleep 30; wait", t.TempDir(), 0, 1000)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if !res.Canceled || res.ExitCode != ExitCanceled {
		t.Errorf("canceled %v exit %d", res.Canceled, res.ExitCode)
	}
	if live := liveGroupProcs(t, leadingInt(t, <-echoed)); len(live) > 0 {
		t.Errorf("processes of the group survived: %q", live)
	}
}

// A process that leaves the group (setsid, a double fork) keeps the pipe
// open; the run ends anyway once bash has exited, and so does the process.
func TestRunEscapedGrandchild(t *testing.T) {
	res, err := RunCommand(context.Background(), "setsid sleep 30 & echo $!; (sleep 32 & echo $!) ", t.TempDir(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || !res.BackgroundEnded {
		t.Errorf("exit %d ended %v output %q", res.ExitCode, res.BackgroundEnded, res.Output)
	}
	for _, f := range strings.Fields(res.Output) {
		if pid, _ := strconv.Atoi(f); pid > 0 && alive(pid) {
			t.Errorf("process %d outlived the command", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func TestRunHugeOutput(t *testing.T) {
	const size = 50_000_000
	const limit = 30000
	res, err := RunCommand(context.Background(), "yes | head -c "+strconv.Itoa(size), t.TempDir(), 0, limit)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != size || res.ExitCode != 0 {
		t.Errorf("total %d exit %d", res.Total, res.ExitCode)
	}
	if !output.Truncated(res.Output) || len(res.Output) > limit+200 || !strings.HasPrefix(res.Output, "y\ny\n") || !strings.HasSuffix(res.Output, "y\n") ||
		!strings.Contains(res.Output, fmt.Sprintf(" of %d shown", size)) {
		t.Errorf("output of %d bytes not cut to %d with a note: %.100q", size, limit, res.Output)
	}
}

// BenchmarkRunCommand200MB reports the heap one run printing 200 MB costs.
func BenchmarkRunCommand200MB(b *testing.B) {
	dir := b.TempDir()
	b.SetBytes(200 << 20)
	b.ReportAllocs()
	for b.Loop() {
		res, err := RunCommand(context.Background(), "yes | head -c 209715200", dir, 0, output.DefaultOutputLimit)
		if err != nil || res.Total != 200<<20 {
			b.Fatalf("total %d err %v", res.Total, err)
		}
	}
}

func TestRunParseProcStat(t *testing.T) {
	for _, tc := range []struct {
		in    string
		state byte
		pgrp  int
		ok    bool
	}{
		{"12 (sleep) S 1 12 12 0", 'S', 12, true},
		{"13 (a) (b) c) Z 1 99 99 0", 'Z', 99, true},
		{"14 (x", 0, 0, false},
		{"15 (x) R 1", 0, 0, false},
	} {
		st, pg, ok := parseProcStat(tc.in)
		if st != tc.state || pg != tc.pgrp || ok != tc.ok {
			t.Errorf("parseProcStat(%q) = %c %d %v", tc.in, st, pg, ok)
		}
	}
}

func TestRunEndsLeftoverBackgroundProcesses(t *testing.T) {
	dir := t.TempDir()
	res, err := RunCommand(context.Background(), "sleep 30 & echo $! > pid", dir, 10*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.BackgroundEnded {
		t.Errorf("leftovers not reported; output = %q", res.Output)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid == 0 {
		t.Fatal("no pid written")
	}
	if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		if st, _, ok := parseProcStat(string(data)); ok && st != 'Z' && st != 'X' {
			t.Errorf("background sleep %d still running (state %c)", pid, st)
		}
	}
}
