//go:build linux

package shell

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/benchws"
	"github.com/aci-dev/aci/tools/limits"
	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/sandbox/sessiond"
)

// BenchmarkContainedStart breaks down what starting one contained command
// costs, running `true` through Shell.Run, in a fresh workspace and in a
// repository of benchws.Folders folders (bench/contained_start.sh runs
// it):
//
//   - bare: a shell with no sandbox at all, with the resource limits (as
//     with ACI_SANDBOX=off): what containment is measured against;
//   - uncontained: outside the sandbox, with the resource limits, as an
//     approved uncontained command runs (the protected files' look
//     around it included);
//   - contained: the path a bash window takes (the session's sandbox),
//     with everything below;
//   - first-bare, first-contained: the first command of a new shell (and
//     for the contained one a new Sandbox: its session, its index of the
//     workspace), run once the shell has had firstGap to set up, as a
//     model's first reply gives it;
//   - oneshot/bwrap: a bwrap of its own per command, without the protected
//     files, the limits or the network link;
//   - oneshot/+net, +limits, +protected: adding the link to the proxy (and
//     the first step that opens its port), then the limits, then the
//     protected files' binds: the whole one-shot path.
//
// cpu-ms/op is the CPU time aci and its children used per command, the
// session's helper and the commands it started included.
func BenchmarkContainedStart(b *testing.B) {
	proxy := netproxy.New(netproxy.Policy{Allow: netproxy.Builtin()})
	large := b.TempDir()
	if err := benchws.Make(large, benchws.Folders); err != nil {
		b.Fatal(err)
	}
	type step struct {
		name                   string
		protected, lim, net    bool
		uncontained, forceShot bool
		first, bare            bool
		ws                     string // "": a fresh one
	}
	var steps []step
	for _, ws := range []struct{ name, dir string }{{"fresh", ""}, {"5000dirs", large}} {
		steps = append(steps,
			step{name: ws.name + "/bare", lim: true, bare: true, ws: ws.dir},
			step{name: ws.name + "/uncontained", lim: true, uncontained: true, ws: ws.dir},
			step{name: ws.name + "/contained", net: true, lim: true, protected: true, ws: ws.dir},
			step{name: ws.name + "/first-bare", lim: true, bare: true, first: true, ws: ws.dir},
			step{name: ws.name + "/first-contained", net: true, lim: true, protected: true, first: true, ws: ws.dir})
	}
	steps = append(steps,
		step{name: "oneshot/bwrap", forceShot: true},
		step{name: "oneshot/+net", net: true, forceShot: true},
		step{name: "oneshot/+limits", net: true, lim: true, forceShot: true},
		step{name: "oneshot/+protected", net: true, lim: true, protected: true, forceShot: true})
	for _, s := range steps {
		b.Run(s.name, func(b *testing.B) {
			if s.lim {
				limits.Configure(limits.Defaults())
			} else {
				limits.ConfigureOff()
			}
			b.Cleanup(func() { limits.Configure(limits.Defaults()) })
			ws := s.ws
			if ws == "" {
				ws = b.TempDir()
			}
			newShell := func() (*Shell, *sandbox.Sandbox) {
				if s.bare {
					sh, err := NewShell(ws)
					if err != nil {
						b.Fatal(err)
					}
					return sh, nil
				}
				p := sandbox.DefaultPolicy(ws)
				if !s.protected {
					p.Protected, p.StandIns = nil, nil
				}
				sb, err := sandbox.New(p, sandbox.Options{Force: sandbox.Bwrap, OneShot: s.forceShot})
				if err != nil {
					b.Skipf("bwrap unavailable: %v", err)
				}
				sh, err := NewContainedShell(ws, sb)
				if err != nil {
					b.Fatal(err)
				}
				return sh, sb
			}
			var opts []RunOption
			if s.net {
				opts = append(opts, Network(proxy, nil))
			}
			if s.uncontained {
				opts = append(opts, Uncontained())
			}
			if s.first {
				benchFirst(b, newShell, opts)
				return
			}
			sh, sb := newShell()
			b.Cleanup(sh.Close)
			b.Cleanup(sb.Close)
			// The first command pays for what is set up once.
			runOnce(b, sh, opts)
			// The kernel tears the previous rows' namespaces down in the
			// background: let it finish rather than charge it to this row.
			time.Sleep(300 * time.Millisecond)
			cpu := cpuTime() + sessionCPU()
			for b.Loop() {
				runOnce(b, sh, opts)
			}
			b.ReportMetric(float64(cpuTime()+sessionCPU()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

// firstGap is how long a new shell waits before its first command in
// the first-command rows: less than a model's first reply takes.
const firstGap = 500 * time.Millisecond

// benchFirst times the first command of a new shell (and Sandbox) per
// iteration, the set-up before it untimed.
func benchFirst(b *testing.B, newShell func() (*Shell, *sandbox.Sandbox), opts []RunOption) {
	b.StopTimer()
	for range b.N {
		sh, sb := newShell()
		time.Sleep(firstGap)
		b.StartTimer()
		runOnce(b, sh, opts)
		b.StopTimer()
		sh.Close()
		sb.Close()
	}
}

// runOnce runs the command true in sh once.
func runOnce(b *testing.B, sh *Shell, opts []RunOption) {
	if res, err := sh.Run(context.Background(), "true", 0, 1000, opts...); err != nil || res.ExitCode != 0 {
		b.Fatalf("exit %d err %v %q", res.ExitCode, err, res.Output)
	}
}

// sessionCPU is the CPU time the session helpers of this process's
// sandboxes used, with the commands they started and waited for: they are
// not aci's children, so cpuTime misses them.
func sessionCPU() time.Duration {
	ents, _ := os.ReadDir("/proc")
	var ticks int64
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !strings.Contains(string(cmd), sessiond.Marker) {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// After "pid (comm) ": state is field 0; utime, stime, cutime,
		// cstime are fields 11 to 14.
		f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
		if parentOf(f[1]) != os.Getpid() {
			continue // another process's session (its parent is the session's bwrap)
		}
		for _, v := range f[11:15] {
			n, _ := strconv.ParseInt(v, 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// parentOf is the parent pid of process pid, or 0.
func parentOf(pid string) int {
	st, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
	n, _ := strconv.Atoi(f[1])
	return n
}

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
//     model's first reply gives them;
//   - first-at-once: the same, run as soon as the shell is made (a model
//     that opens its bash window and runs a command in one reply), the
//     bare one and the contained one each alone.
func BenchmarkContainedOverBare(b *testing.B) {
	proxy := netproxy.New(netproxy.Policy{Allow: netproxy.Builtin()})
	limits.Configure(limits.Defaults())
	large := b.TempDir()
	if err := benchws.Make(large, benchws.Folders); err != nil {
		b.Fatal(err)
	}
	net := []RunOption{Network(proxy, nil)}
	for _, ws := range []struct{ name, dir string }{{"fresh", ""}, {"5000dirs", large}} {
		for _, mode := range []string{"each", "first", "first-at-once"} {
			b.Run(ws.name+"/"+mode, func(b *testing.B) {
				dir := ws.dir
				if dir == "" {
					dir = b.TempDir()
				}
				open := func(contained bool) (*Shell, func()) {
					if !contained {
						sh, err := NewShell(dir)
						if err != nil {
							b.Fatal(err)
						}
						return sh, sh.Close
					}
					sb, err := sandbox.New(sandbox.DefaultPolicy(dir), sandbox.Options{Force: sandbox.Bwrap})
					if err != nil {
						b.Skipf("bwrap unavailable: %v", err)
					}
					sh, err := NewContainedShell(dir, sb)
					if err != nil {
						b.Fatal(err)
					}
					return sh, func() { sh.Close(); sb.Close() }
				}
				var p pairs
				switch mode {
				case "each":
					bare, doneBare := open(false)
					contained, doneContained := open(true)
					b.Cleanup(doneBare)
					b.Cleanup(doneContained)
					runOnce(b, bare, nil) // what each sets up once
					runOnce(b, contained, net)
					time.Sleep(300 * time.Millisecond) // earlier rows' namespaces torn down
					for i := 0; b.Loop(); i++ {
						p.add(i, func() time.Duration { return timed(b, bare, nil) }, func() time.Duration { return timed(b, contained, net) })
					}
				case "first":
					b.StopTimer()
					for i := range b.N {
						bare, doneBare := open(false)
						contained, doneContained := open(true)
						time.Sleep(firstGap)
						p.add(i, func() time.Duration { return timed(b, bare, nil) }, func() time.Duration { return timed(b, contained, net) })
						doneBare()
						doneContained()
					}
				default:
					b.StopTimer()
					atOnce := func(contained bool, opts []RunOption) time.Duration {
						sh, done := open(contained)
						defer done()
						return timed(b, sh, opts)
					}
					for i := range b.N {
						p.add(i, func() time.Duration { return atOnce(false, nil) }, func() time.Duration { return atOnce(true, net) })
					}
				}
				p.report(b)
			})
		}
	}
}

// timed is how long sh takes to run true.
func timed(b *testing.B, sh *Shell, opts []RunOption) time.Duration {
	t := time.Now()
	runOnce(b, sh, opts)
	return time.Since(t)
}

// pairs are the times of paired bare and contained commands.
type pairs struct{ bare, contained, over []time.Duration }

// add times one bare and one contained command, the bare one first on
// even i.
func (p *pairs) add(i int, bare, contained func() time.Duration) {
	var tb, tc time.Duration
	if i%2 == 0 {
		tb = bare()
		tc = contained()
	} else {
		tc = contained()
		tb = bare()
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
