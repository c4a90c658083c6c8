package windows

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/benchws"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/sandbox"
)

// BenchmarkBashWindowRun runs `true` end to end through a bash window's
// run action (guard, sandbox, limits, network link, result), contained and
// uncontained (approved at once), in a fresh workspace and in a
// repository of benchws.Folders folders: the difference is what
// containment costs a command (bench/contained_start.sh runs it). The
// first-* rows time the first command of a new window in a new
// workspace (a new Sandbox), opened firstGap before, as a model's first
// reply leaves it.
func BenchmarkBashWindowRun(b *testing.B) {
	for _, size := range []int{0, benchws.Folders} {
		for _, first := range []bool{false, true} {
			for _, uncontained := range []bool{false, true} {
				name := map[int]string{0: "fresh/", benchws.Folders: "5000dirs/"}[size] +
					map[bool]string{true: "first-"}[first] + map[bool]string{false: "contained", true: "uncontained"}[uncontained]
				b.Run(name, func(b *testing.B) {
					if !first {
						run := openBenchBash(b, size, uncontained)
						run() // the first command pays for what is set up once
						for b.Loop() {
							run()
						}
						return
					}
					b.StopTimer()
					for range b.N {
						run := openBenchBash(b, size, uncontained)
						time.Sleep(firstGap)
						b.StartTimer()
						run()
						b.StopTimer()
					}
				})
			}
		}
	}
}

// firstGap is how long a new bash window waits before its first command
// in the first-* rows: less than a model's reply takes.
const firstGap = 500 * time.Millisecond

// openBenchBash opens a bash window in a new workspace of size folders (0:
// empty) and returns what runs `true` in it.
func openBenchBash(b *testing.B, size int, uncontained bool) func() {
	allow := ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{Allow: true} })
	dir := b.TempDir()
	if size > 0 {
		if err := benchws.Make(dir, size); err != nil {
			b.Fatal(err)
		}
	}
	m := NewManager(Env{Workdir: dir, OutputLimit: 30000, Approver: allow}, BashApp)
	b.Cleanup(m.CloseAll)
	if !sandbox.For(dir).Contained() {
		b.Skip("this machine cannot contain commands")
	}
	params := map[string]json.RawMessage{"command": json.RawMessage(`"true"`)}
	if uncontained {
		params["uncontained"] = json.RawMessage(`true`)
	}
	ctx := context.Background()
	if r := m.Execute(ctx, "launcher", "open", map[string]json.RawMessage{"app": json.RawMessage(`"bash"`)}); r.Status != protocol.StatusOK {
		b.Fatalf("open: %+v", r)
	}
	return func() {
		if r := m.Execute(ctx, "bash_1", "run", params); r.Status != protocol.StatusOK || r.Failed {
			b.Fatalf("run: %+v", r)
		}
	}
}
