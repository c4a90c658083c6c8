//go:build linux

package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/tools/output"
	"github.com/aci-dev/aci/tools/sandbox"
)

// Commands started in the session's sandbox stay apart: a command sees
// and reaches only its own processes (kill -9 -1 spares a background task
// of the same session), and nothing of the task outlives its kill.
func TestSessionKeepsCommandsApart(t *testing.T) {
	ctx := context.Background()
	sh, ws, _ := containedShell(t, sandbox.Bwrap)
	if res, err := sh.Run(ctx, "true", 0, 1000); err != nil || res.ExitCode != 0 {
		t.Fatalf("exit %d err %v", res.ExitCode, err)
	}
	if !sh.Sandbox().SessionUp() {
		t.Fatal("the command did not start in the session's sandbox")
	}
	fifo, started := fifoIn(t, ws)
	defer os.Remove(fifo)
	task, err := sh.Start("sleep 31.05 & echo go > "+quoteForBash(fifo)+"; wait", 1000)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	res, err := sh.Run(ctx, "kill -9 -1; ps ax -o args=", 0, 10000)
	if err != nil || strings.Contains(res.Output, "31.05") {
		t.Errorf("a command saw another's processes: err %v output %q", err, res.Output)
	}
	if task.State() != TaskRunning || len(survivors(t, "sleep 31.05")) == 0 {
		t.Errorf("kill -1 reached a background task: state %s", task.State())
	}
	if err := task.Kill(); err != nil {
		t.Fatal(err)
	}
	if live := survivors(t, "sleep 31.05"); len(live) > 0 {
		t.Errorf("survivors: %q", live)
	}
}

// A command with a path writable for it alone (a grant: a policy delta the
// session does not have) takes the one-shot path, which gives it that
// path; the same write from a command without it does not reach the host.
func TestPolicyDeltaTakesOneShot(t *testing.T) {
	sh, ws, _ := containedShell(t, sandbox.Bwrap)
	grant, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := output.NewCapture(1000, 1000)
	p, err := startShellProc("echo granted > "+quoteForBash(filepath.Join(grant, "f")), ws, out, sh.Sandbox(), netOpts{}, []string{grant}, "")
	if err != nil {
		t.Fatal(err)
	}
	p.finish()
	p.limitHit("")
	if b, err := os.ReadFile(filepath.Join(grant, "f")); string(b) != "granted\n" {
		t.Errorf("granted write: %q %v, exit %d output %q", b, err, p.exitCode(), out.Text(1000))
	}
	res, _ := sh.Run(context.Background(), "echo x > "+quoteForBash(filepath.Join(grant, "g")), 0, 1000)
	if _, err := os.Stat(filepath.Join(grant, "g")); err == nil {
		t.Errorf("a command without the grant wrote there: %+v", res)
	}
}
