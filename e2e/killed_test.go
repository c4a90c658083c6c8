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
)

// aci killed with SIGKILL (as the OOM killer would) while a contained
// command runs leaves no process behind: not the command, not the
// sandbox of the session or of the command, not its helper. Both start
// paths: the session's sandbox, and a sandbox of its own (a command given
// a grant).
func TestE2EKilledLeavesNoProcess(t *testing.T) {
	for _, tc := range []struct{ name, cmd, marker string }{
		{"session", "sleep 87", "sleep 87"},
		{"one-shot", "rm -rf GRANTED/x; sleep 88", "sleep 88"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work, home := t.TempDir(), t.TempDir()
			containedOrSkip(t, work)
			granted := filepath.Join(t.TempDir(), "g")
			os.MkdirAll(filepath.Join(granted, "x"), 0o755)
			srv := fakeai.New(t,
				fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
				runCall(strings.ReplaceAll(tc.cmd, "GRANTED", granted)),
				fakeai.Reply{Content: "done"},
			)
			run := start(t, work, baseEnv(t, srv, "HOME="+home), "--yes", "-p", "wait")
			pid := run.cmd.Process.Pid
			session := fmt.Sprintf("aci-session-%d-", pid)
			deadline := time.Now().Add(30 * time.Second)
			for len(testutil.Procs(tc.marker)) == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if len(testutil.Procs(tc.marker)) == 0 {
				t.Fatal("the command did not start")
			}
			// Mid-command: bwrap binds its pid 1 to its own parent a few
			// steps after it forks the command (a kill in that instant
			// leaves it for the next aci's sweep, killStaleSandboxes).
			time.Sleep(300 * time.Millisecond)
			tree := testutil.Descendants(pid)
			run.signal(syscall.SIGKILL)
			run.exited(t, 30*time.Second)
			var left []string
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				left = left[:0]
				for _, p := range testutil.Procs(tc.marker, session) {
					left = append(left, p.String())
				}
				for _, p := range tree {
					if testutil.Alive(p) {
						left = append(left, fmt.Sprintf("%d (was under aci)", p))
					}
				}
				if len(left) == 0 {
					break
				}
			}
			if len(left) > 0 {
				t.Errorf("left running 5 s after aci was killed:\n%s", strings.Join(left, "\n"))
			}
		})
	}
}
