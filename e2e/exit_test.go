package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
	"github.com/aci-dev/aci/internal/testutil"
)

// Nothing aci starts outlives it, on a loaded machine too: a turn whose
// command is denied (the session's sandbox warming up meanwhile) or whose
// command ran, then aci exits; the moment it has exited, no sandbox of it
// is left (not even one being killed). Run many times with every core
// kept busy alongside (ACI_EXIT_RUNS, default 4: two of each). Each run
// is bounded (exitRunLimit): an aci that does not exit is a failure
// with its output, not a test that never ends.
func TestE2EExitLeavesNoSandbox(t *testing.T) {
	work := t.TempDir()
	containedOrSkip(t, work)
	runs := 4
	if n, err := strconv.Atoi(os.Getenv("ACI_EXIT_RUNS")); err == nil && n > 0 {
		runs = n
	}
	testbin.Build(t) // before the load: the build is not what is measured
	ctx, stop := context.WithCancel(context.Background())
	var burns []*exec.Cmd
	// Stopped, then waited for: waiting first (a defer per burner, run
	// before the stop) never returned, and kept every core busy.
	defer func() {
		stop()
		for _, b := range burns {
			b.Wait()
		}
	}()
	for range runtime.NumCPU() {
		burn := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
		if burn.Start() == nil {
			burns = append(burns, burn)
		}
	}
	target := filepath.Join(t.TempDir(), "keep")
	os.MkdirAll(target, 0o755)
	for i := range runs {
		cmds := []string{"rm -rf " + target, "true"} // denied in pipe mode; runs
		srv := fakeai.New(t,
			fakeai.Reply{Content: fakeai.ToolCall(
				call("launcher", "open", map[string]any{"app": "bash"}),
				call("bash_1", "run", map[string]any{"command": cmds[i%2]}),
			)},
			fakeai.Reply{Content: "done"},
		)
		run := start(t, work, baseEnv(t, srv, "HOME="+t.TempDir()), "-p", "tidy up")
		pid := run.cmd.Process.Pid
		t.Logf("run %d: %s", i, cmds[i%2])
		run.exited(t, exitRunLimit)
		if left := testutil.Procs("/aci-session-" + strconv.Itoa(pid) + "-"); len(left) > 0 {
			t.Errorf("run %d (%s): left running after aci exited:\n%v", i, cmds[i%2], left)
		}
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
}

// exitRunLimit bounds one run of TestE2EExitLeavesNoSandbox: a turn of
// one command takes seconds even with every core busy.
const exitRunLimit = 2 * time.Minute
