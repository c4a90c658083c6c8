//go:build linux

package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/tools/limits"
	"github.com/aci-dev/aci/tools/sandbox"
)

// withLimits bounds the commands of the test by v, as aci does at start
// (with rlimits only when rlimits is set).
func withLimits(t *testing.T, v limits.Values, rlimits bool) *limits.Limiter {
	t.Helper()
	if rlimits {
		limits.ConfigureRlimits(v)
	} else {
		limits.Configure(v)
	}
	t.Cleanup(func() { limits.Configure(limits.Defaults()) })
	l := limits.Current()
	if l.Mechanism() == limits.Off {
		t.Skip("no resource limits on this machine")
	}
	t.Logf("limits by %s", l.Mechanism())
	return l
}

// A memory balloon, a process flood and a huge file are each stopped by
// their limit, with a result naming it, under every sandbox kind and
// uncontained; a process outside the command lives on.
func TestLimitsStopCommands(t *testing.T) {
	for _, rl := range []bool{false, true} {
		t.Run(map[bool]string{false: "best", true: "rlimits"}[rl], func(t *testing.T) { limitsStop(t, rl) })
	}
}

func limitsStop(t *testing.T, rlimits bool) {
	l := withLimits(t, limits.Values{MemoryMB: 256, Processes: 64, FileSizeMB: 16}, rlimits)
	bystander := exec.Command("sleep", "60")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer bystander.Process.Kill()
	cases := []struct{ name, cmd, want string }{
		{"memory", `python3 -c "b = bytearray(1 << 30); print(len(b))"`, "memory limit (256 MB"},
		{"memory in children", `for i in 1 2 3 4; do python3 -c "import time; b = bytearray(100 << 20); b[::4096] = b'x' * len(b[::4096]); time.sleep(1)" & done; wait`, "memory limit (256 MB"},
		{"processes", `python3 -c "
import os, time
for i in range(1000):
    if os.fork() == 0:
        time.sleep(30); os._exit(0)
"`, "process limit"},
		{"file size", `truncate -s 1T big && echo made`, "file size limit (16 MB"},
		{"file written", `head -c 20000000 /dev/zero > big2`, "file size limit (16 MB"},
	}
	kinds := []sandbox.Kind{sandbox.Bwrap, bwrapOneShot, sandbox.Landlock, sandbox.None}
	if rlimits {
		kinds = kinds[:1] // the rlimits are the same whatever contains the command
	}
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			ws := t.TempDir()
			sb, err := sandbox.New(sandbox.DefaultPolicy(ws), sandboxOptions(k))
			if err != nil {
				t.Skipf("%s unavailable: %v", k, err)
			}
			sh, err := NewContainedShell(ws, sb)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sh.Close)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					if tc.name == "processes" && l.Mechanism() == limits.Rlimits && os.Geteuid() == 0 {
						t.Skip("root is not held by RLIMIT_NPROC and there is no writable cgroup")
					}
					if tc.name == "memory in children" && l.Mechanism() == limits.Rlimits {
						t.Skip("rlimits bound each process, not the command")
					}
					res, err := sh.Run(context.Background(), tc.cmd, 60*time.Second, 2000)
					// The shell's wait may report the last child's status, 0.
					if err != nil || (res.ExitCode == 0 && tc.name != "memory in children") || !strings.Contains(res.Limit, tc.want) {
						t.Errorf("exit %d err %v limit %q output %q", res.ExitCode, err, res.Limit, res.Output)
					}
				})
			}
			if fi, err := os.Stat(filepath.Join(ws, "big")); err == nil && fi.Size() > 16<<20 {
				t.Errorf("a %d-byte file was made", fi.Size())
			}
		})
	}
	if err := bystander.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the bystander died: %v", err)
	}
}

// BenchmarkLimitsOverhead measures what the limits add to starting a
// command: none (no helper), rlimits (the helper re-executes aci, sets
// them and execs), and cgroups (the helper also joins a fresh cgroup per
// command, which aci makes and removes) — uncontained, and under bwrap.
func BenchmarkLimitsOverhead(b *testing.B) {
	for _, k := range []sandbox.Kind{sandbox.None, sandbox.Bwrap} {
		for _, mode := range []string{"off", "rlimits", "best"} {
			b.Run(string(k)+"/"+mode, func(b *testing.B) {
				switch mode {
				case "off":
					limits.ConfigureOff()
				case "rlimits":
					limits.ConfigureRlimits(limits.Defaults())
				default:
					limits.Configure(limits.Defaults())
					b.Logf("best: %s", limits.Current().Mechanism())
				}
				defer limits.Configure(limits.Defaults())
				sh := benchShell(b, k)
				cpu := childCPU()
				runTrue(b, sh)
				b.ReportMetric(float64(childCPU()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// childCPU is the CPU time the test's reaped children (and theirs) used:
// a figure a busy machine inflates less than the wall time.
func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
