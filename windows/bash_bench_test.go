package windows

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/sandbox"
)

// BenchmarkBashWindowRun runs `true` end to end through a bash window's
// run action (guard, sandbox, limits, network link, result), contained and
// uncontained (approved at once): the difference is what containment costs
// a command (bench/contained_start.sh runs it).
func BenchmarkBashWindowRun(b *testing.B) {
	for _, uncontained := range []bool{false, true} {
		b.Run(map[bool]string{false: "contained", true: "uncontained"}[uncontained], func(b *testing.B) {
			allow := ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{Allow: true} })
			dir := b.TempDir()
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
			run := func() {
				if r := m.Execute(ctx, "bash_1", "run", params); r.Status != protocol.StatusOK || r.Failed {
					b.Fatalf("run: %+v", r)
				}
			}
			run() // the first command pays for what is set up once
			for b.Loop() {
				run()
			}
		})
	}
}
