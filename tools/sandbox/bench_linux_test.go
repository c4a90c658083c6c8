//go:build linux

package sandbox

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// childCPU is the CPU time the test's reaped children have used.
func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBwrapCommand measures starting `true` under bwrap with the
// default policy of a fresh workspace, with and without the protected
// files (an existing one bound read-only, the missing ones given
// stand-ins). cpu-ms/op is the CPU the command's processes used, a figure
// that a busy machine inflates less than the wall time.
func BenchmarkBwrapCommand(b *testing.B) {
	for _, prot := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "protected"}[prot], func(b *testing.B) {
			ws := b.TempDir()
			p := DefaultPolicy(ws)
			if !prot {
				p.Protected = nil
			}
			s := mustSandbox(b, p, Bwrap)
			defer cleanupForTest()
			cpu := childCPU()
			for b.Loop() {
				argv, release, err := s.Command([]string{"true"}, ws)
				if err != nil {
					b.Fatal(err)
				}
				if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				release()
			}
			b.ReportMetric(float64(childCPU()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}
