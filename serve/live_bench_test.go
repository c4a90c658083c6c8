package serve

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// stampCommand prints the time (ns since the epoch) on a line every 20 ms,
// 50 times: each line's latency is when a reader got it minus its stamp.
const stampCommand = "for i in $(seq 1 50); do date +%s%N; sleep 0.02; done"

// latencies reads the stamps in text and returns now minus each.
func latencies(text string, now time.Time) []time.Duration {
	var out []time.Duration
	for _, l := range strings.Split(text, "\n") {
		if ns, err := strconv.ParseInt(strings.TrimSpace(l), 10, 64); err == nil && ns > 0 {
			out = append(out, now.Sub(time.Unix(0, ns)))
		}
	}
	return out
}

// reportLatency reports p50, p99 and max of lat.
func reportLatency(b *testing.B, lat []time.Duration) {
	b.Helper()
	if len(lat) == 0 {
		b.Fatal("no line read")
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "ms-p50")
	b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "ms-p99")
	b.ReportMetric(float64(lat[len(lat)-1].Milliseconds()), "ms-max")
}

// BenchmarkOutputToSSEClient measures how long a line a command writes
// takes to reach an SSE client as an output event: the shell's pipe, the
// live buffer, the coalescing (ten times a second), the session's
// fan-out, the server's encoding and loopback HTTP. Each iteration is a
// turn running stampCommand.
func BenchmarkOutputToSSEClient(b *testing.B) {
	r := newRig(b, nil)
	r.ai.Handle(func(req fakeai.Request) fakeai.Reply {
		if strings.Contains(req.Last(), "<result") {
			return fakeai.Reply{Content: "done"}
		}
		return fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": stampCommand}))}
	})
	id := r.newSession()
	ev := r.events(id, "")
	var lat []time.Duration
	b.ResetTimer()
	for range b.N {
		r.ask(id, "stamp")
		for {
			e := ev.next(60 * time.Second)
			if e.Type == "output" {
				lat = append(lat, latencies(e.Data["text"].(string), time.Now())...)
			}
			if idle(e) {
				break
			}
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
}
