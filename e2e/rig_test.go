// Package e2e is aci's end-to-end suite: each test runs the real binary
// (built once, internal/testbin) in a fresh workspace against the scripted
// model of internal/fakeai, and looks at what a person or program would
// see: output, exit code, files, requests, processes.
package e2e

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
	"github.com/aci-dev/aci/internal/testutil"
)

const testKey = testbin.Key

type runResult struct {
	stdout, stderr string
	code           int
}

// machineTmp makes a folder in the machine's /tmp, removed when the test
// ends: a contained command sees its session's own /tmp there instead.
func machineTmp(t *testing.T, prefix string) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// usageErrors runs aci -p with each question of wants in dir, each of
// which must be refused as a usage error (exit 2) saying its want.
func usageErrors(t *testing.T, dir string, srv *fakeai.Server, env []string, wants map[string]string) {
	t.Helper()
	for q, want := range wants {
		r := aci(t, dir, srv, "", env, "-p", q)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("aci -p %q: code %d, stderr %q; want 2 and %q", q, r.code, r.stderr, want)
		}
	}
}

// aci runs the real binary in dir against srv, with stdin as its input.
func aci(t *testing.T, dir string, srv *fakeai.Server, stdin string, env []string, args ...string) runResult {
	t.Helper()
	return aciEnv(t, dir, baseEnv(t, srv, env...), stdin, args...)
}

// aciOK is aci, failing the test unless aci exits 0.
func aciOK(t *testing.T, dir string, srv *fakeai.Server, stdin string, env []string, args ...string) runResult {
	t.Helper()
	r := aci(t, dir, srv, stdin, env, args...)
	if r.code != 0 {
		t.Fatalf("aci %q: exit %d, stderr:\n%s", args, r.code, r.stderr)
	}
	return r
}

// aciEnv runs the real binary in dir with exactly the environment env.
func aciEnv(t *testing.T, dir string, env []string, stdin string, args ...string) runResult {
	t.Helper()
	r := testbin.Run(t, testbin.Command(t, dir, env, args...), stdin)
	return runResult{r.Stdout, r.Stderr, r.Code}
}

// baseEnv is the binary's environment against srv (nil: none), then extra.
func baseEnv(t *testing.T, srv *fakeai.Server, extra ...string) []string {
	return testbin.Env(t, srv, extra...)
}

// running is the binary started in the background; it is killed when the
// test ends if it still runs.
type running struct {
	cmd            *exec.Cmd
	stdout, stderr *testutil.SyncBuffer
	done           chan struct{} // closed when it has exited
	err            error         // cmd.Wait's, once done
}

// start starts the binary in dir with exactly env.
func start(t *testing.T, dir string, env []string, args ...string) *running {
	t.Helper()
	r := &running{cmd: testbin.Command(t, dir, env, args...), stdout: &testutil.SyncBuffer{}, stderr: &testutil.SyncBuffer{}, done: make(chan struct{})}
	r.cmd.Stdout, r.cmd.Stderr = r.stdout, r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.err = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

// signal sends sig to the binary.
func (r *running) signal(sig os.Signal) { r.cmd.Process.Signal(sig) }

// exited waits up to within for the binary to end and returns its exit
// code (-1 killed by a signal); the test fails if it runs on.
func (r *running) exited(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(within):
		r.cmd.Process.Kill()
		<-r.done
		t.Fatalf("aci had not exited after %s; stderr:\n%s", within, r.stderr)
	}
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

func call(window, action string, params map[string]any) fakeai.Call {
	return fakeai.Call{Window: window, Action: action, Params: params}
}

// bgServer is a background server's server.json, as aci writes it.
type bgServer struct {
	PID   int    `json:"pid"`
	Token string `json:"token"`
}

// waitFor polls cond until it holds or within has passed, and returns
// what it last saw; the test fails, naming what, if it never held.
func waitFor[T any](t *testing.T, within time.Duration, what string, cond func() (T, bool)) (T, bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		v, ok := cond()
		if ok {
			return v, true
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s; saw:\n%v", within, what, v)
			return v, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openBash opens a bash window: bash_1, the first of a session.
var openBash = call("launcher", "open", map[string]any{"app": "bash"})

// openFile opens a file window on target.
func openFile(target string) fakeai.Call {
	return call("launcher", "open", map[string]any{"app": "file", "target": target})
}

// act is a reply of the model that makes calls.
func act(calls ...fakeai.Call) fakeai.Reply { return fakeai.Reply{Content: fakeai.ToolCall(calls...)} }

// bashRun runs command in bash_1.
func bashRun(command string) fakeai.Call {
	return call("bash_1", "run", map[string]any{"command": command})
}
