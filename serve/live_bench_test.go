package serve

import (
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

// testutil.StampCommand prints the time (ns since the epoch) on a line every 20 ms,
// 50 times: each line's latency is when a reader got it minus its stamp.
// BenchmarkOutputToSSEClient measures how long a line a command writes
// takes to reach an SSE client as an output event: the shell's pipe, the
// live buffer, the coalescing (ten times a second), the session's
// fan-out, the server's encoding and loopback HTTP. Each iteration is a
// turn running testutil.StampCommand.
func BenchmarkOutputToSSEClient(b *testing.B) {
	r := newRig(b, nil)
	r.ai.Handle(func(req fakeai.Request) fakeai.Reply {
		if strings.Contains(req.Last(), "<result") {
			return fakeai.Reply{Content: "done"}
		}
		return fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": testutil.StampCommand}))}
	})
	id, ev := r.followedSession()
	var lat []time.Duration
	b.ResetTimer()
	for range b.N {
		r.ask(id, "stamp")
		for {
			e := ev.next(60 * time.Second)
			if e.Type == "output" {
				lat = append(lat, testutil.Latencies(e.Data["text"].(string), time.Now())...)
			}
			if idle(e) {
				break
			}
		}
	}
	b.StopTimer()
	testutil.ReportLatency(b, lat)
}
