package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
)

// procsOf lists live processes whose command line holds any of patterns.
func procsOf(patterns ...string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			continue
		}
		line := strings.ReplaceAll(string(cmd), "\x00", " ")
		for _, p := range patterns {
			if strings.Contains(line, p) {
				out = append(out, e.Name()+": "+line)
				break
			}
		}
	}
	return out
}

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
			cmd := exec.Command(testbin.Build(t), "--yes", "-p", "wait")
			cmd.Dir = work
			cmd.Env = baseEnv(t, srv, "HOME="+home)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := strconv.Itoa(cmd.Process.Pid)
			session := "aci-session-" + pid + "-"
			deadline := time.Now().Add(30 * time.Second)
			for len(procsOf(tc.marker)) == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if len(procsOf(tc.marker)) == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the command did not start")
			}
			// Mid-command: bwrap binds its pid 1 to its own parent a few
			// steps after it forks the command (a kill in that instant
			// leaves it for the next aci's sweep, killStaleSandboxes).
			time.Sleep(300 * time.Millisecond)
			tree := descendants(cmd.Process.Pid)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			var left []string
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				left = procsOf(tc.marker, session)
				for _, p := range tree {
					if b, err := os.ReadFile("/proc/" + p + "/stat"); err == nil && !strings.Contains(string(b[strings.LastIndexByte(string(b), ')'):]), ") Z") {
						left = append(left, p+" (was under aci)")
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

// descendants are the pids below pid now.
func descendants(pid int) []string {
	children := map[string][]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 {
			children[f[1]] = append(children[f[1]], e.Name())
		}
	}
	var out []string
	queue := []string{strconv.Itoa(pid)}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
