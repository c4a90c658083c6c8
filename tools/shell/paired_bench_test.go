//go:build linux

package shell

import (
	"slices"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/benchws"
	"github.com/aci-dev/aci/tools/limits"
	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/sandbox"
)

// BenchmarkContainedOverBare is what containment adds to a command, in
// pairs: each iteration runs `true` once bare (no sandbox, as with
// ACI_SANDBOX=off) and once contained (the session's sandbox, the network
// link, the limits, the protected files: a bash window's path), in turn
// first, in the same workspace, so that whatever slows the machine at that
// moment slows both. It reports the median of each and the median of the
// pairs' differences (over-ms), in a fresh workspace and in a repository
// of benchws.Folders folders (bench/contained_start.sh runs it):
//
//   - each: a command of a session under way (one bare and one contained
//     shell, each past its first command);
//   - first: the first command of a new shell, and for the contained one
//     of a new Sandbox, run once both have had firstGap to set up, as a
//     model's first reply gives them.
func BenchmarkContainedOverBare(b *testing.B) {
	proxy := netproxy.New(netproxy.Policy{Allow: netproxy.Builtin()})
	limits.Configure(limits.Defaults())
	large := b.TempDir()
	if err := benchws.Make(large, benchws.Folders); err != nil {
		b.Fatal(err)
	}
	for _, ws := range []struct{ name, dir string }{{"fresh", ""}, {"5000dirs", large}} {
		for _, first := range []bool{false, true} {
			name := ws.name + map[bool]string{false: "/each", true: "/first"}[first]
			b.Run(name, func(b *testing.B) {
				dir := ws.dir
				if dir == "" {
					dir = b.TempDir()
				}
				open := func() (bare, contained *Shell, done func()) {
					sb, err := sandbox.New(sandbox.DefaultPolicy(dir), sandbox.Options{Force: sandbox.Bwrap})
					if err != nil {
						b.Skipf("bwrap unavailable: %v", err)
					}
					bare, err = NewShell(dir)
					if err == nil {
						contained, err = NewContainedShell(dir, sb)
					}
					if err != nil {
						b.Fatal(err)
					}
					return bare, contained, func() { bare.Close(); contained.Close(); sb.Close() }
				}
				net := []RunOption{Network(proxy, nil)}
				var p pairs
				if first {
					b.StopTimer()
					for i := range b.N {
						bare, contained, done := open()
						time.Sleep(firstGap)
						p.add(b, i, bare, contained, net)
						done()
					}
				} else {
					bare, contained, done := open()
					b.Cleanup(done)
					runOnce(b, bare, nil) // what each sets up once
					runOnce(b, contained, net)
					time.Sleep(300 * time.Millisecond) // earlier rows' namespaces torn down
					for i := 0; b.Loop(); i++ {
						p.add(b, i, bare, contained, net)
					}
				}
				p.report(b)
			})
		}
	}
}

// pairs are the times of paired bare and contained commands.
type pairs struct{ bare, contained, over []time.Duration }

// add runs one bare and one contained command, the bare one first on
// even i.
func (p *pairs) add(b *testing.B, i int, bare, contained *Shell, net []RunOption) {
	timed := func(sh *Shell, opts []RunOption) time.Duration {
		t := time.Now()
		runOnce(b, sh, opts)
		return time.Since(t)
	}
	var tb, tc time.Duration
	if i%2 == 0 {
		tb = timed(bare, nil)
		tc = timed(contained, net)
	} else {
		tc = timed(contained, net)
		tb = timed(bare, nil)
	}
	p.bare, p.contained, p.over = append(p.bare, tb), append(p.contained, tc), append(p.over, tc-tb)
}

func (p *pairs) report(b *testing.B) {
	ms := func(d []time.Duration) float64 {
		if len(d) == 0 {
			return 0
		}
		s := slices.Clone(d)
		slices.Sort(s)
		m := s[len(s)/2]
		if len(s)%2 == 0 {
			m = (s[len(s)/2-1] + m) / 2
		}
		return float64(m) / float64(time.Millisecond)
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(p.bare), "bare-ms")
	b.ReportMetric(ms(p.contained), "contained-ms")
	b.ReportMetric(ms(p.over), "over-ms")
}
