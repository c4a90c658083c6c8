//go:build linux

package shell

import (
	"context"
	"testing"

	"github.com/aci-dev/aci/tools/limits"
	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/sandbox"
)

// BenchmarkContainedStart breaks down what starting one contained command
// costs, running `true` through Shell.Run in a fresh workspace
// (bench/contained_start.sh runs it):
//
//   - uncontained: outside the sandbox, with the resource limits, as an
//     approved uncontained command runs;
//   - oneshot/bwrap: a bwrap of its own per command, without the protected
//     files, the limits or the network link;
//   - oneshot/+net, +limits, +protected: adding the link to the proxy (and
//     the first step that opens its port), then the limits, then the
//     protected files' binds: the whole one-shot path;
//   - contained: the path a bash window takes, with all of the above.
//
// cpu-ms/op is the CPU time aci and its children used per command.
func BenchmarkContainedStart(b *testing.B) {
	ctx := context.Background()
	proxy := netproxy.New(netproxy.Policy{Allow: netproxy.Builtin()})
	type step struct {
		name                   string
		protected, lim, net    bool
		uncontained, forceShot bool
	}
	steps := []step{
		{name: "uncontained", lim: true, uncontained: true},
		{name: "oneshot/bwrap", forceShot: true},
		{name: "oneshot/+net", net: true, forceShot: true},
		{name: "oneshot/+limits", net: true, lim: true, forceShot: true},
		{name: "oneshot/+protected", net: true, lim: true, protected: true, forceShot: true},
		{name: "contained", net: true, lim: true, protected: true},
	}
	for _, s := range steps {
		b.Run(s.name, func(b *testing.B) {
			if s.lim {
				limits.Configure(limits.Defaults())
			} else {
				limits.ConfigureOff()
			}
			b.Cleanup(func() { limits.Configure(limits.Defaults()) })
			ws := b.TempDir()
			p := sandbox.DefaultPolicy(ws)
			if !s.protected {
				p.Protected, p.StandIns = nil, nil
			}
			sb, err := sandbox.New(p, sandbox.Options{Force: sandbox.Bwrap, OneShot: s.forceShot})
			if err != nil {
				b.Skipf("bwrap unavailable: %v", err)
			}
			b.Cleanup(sb.Close)
			sh, err := NewContainedShell(ws, sb)
			if err != nil {
				b.Fatal(err)
			}
			var opts []RunOption
			if s.net {
				opts = append(opts, Network(proxy, nil))
			}
			if s.uncontained {
				opts = append(opts, Uncontained())
			}
			// The first command pays for what is set up once.
			if res, err := sh.Run(ctx, "true", 0, 1000, opts...); err != nil || res.ExitCode != 0 {
				b.Fatalf("exit %d err %v %q", res.ExitCode, err, res.Output)
			}
			cpu := cpuTime()
			for b.Loop() {
				if res, err := sh.Run(ctx, "true", 0, 1000, opts...); err != nil || res.ExitCode != 0 {
					b.Fatalf("exit %d err %v %q", res.ExitCode, err, res.Output)
				}
			}
			reportCPU(b, cpu)
		})
	}
}
