package serve

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/session"
)

// BenchmarkEventToClient measures how long a streamed piece of the
// model's text takes from the moment the agent emits it to the moment an
// SSE client has read it: the session's fan-out, the server's encoding,
// redaction and flush, and loopback HTTP. Each iteration is a turn of 50
// pieces; the metrics are per event.
func BenchmarkEventToClient(b *testing.B) {
	const pieces = 50
	var content strings.Builder
	for i := range pieces {
		fmt.Fprintf(&content, "%07d ", i) // 8 runes: one stream chunk each
	}
	var mu sync.Mutex
	emitted := map[string]time.Time{}
	r := newRig(b, nil)
	r.srv.withOptions = func(opt *session.Options) {
		opt.Events = func(ev session.Event) {
			if t, ok := ev.(session.Text); ok && t.Text != "" {
				now := time.Now()
				mu.Lock()
				emitted[t.Text] = now
				mu.Unlock()
			}
		}
	}
	r.ai.Handle(func(fakeai.Request) fakeai.Reply {
		return fakeai.Reply{Content: content.String(), ChunkDelay: time.Millisecond}
	})
	id, ev := r.followedSession()
	var lat []time.Duration
	b.ResetTimer()
	for range b.N {
		r.ask(id, "count")
		for {
			e := ev.next(30 * time.Second)
			got := time.Now()
			if e.Type == "text" {
				mu.Lock()
				at, ok := emitted[e.Data["text"].(string)]
				mu.Unlock()
				if ok {
					lat = append(lat, got.Sub(at))
				}
			}
			if idle(e) {
				break
			}
		}
	}
	b.StopTimer()
	if len(lat) == 0 {
		b.Fatal("no text event matched an emitted one")
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	b.ReportMetric(float64(sum.Microseconds())/float64(len(lat)), "µs/event-mean")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "µs/event-p50")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "µs/event-p99")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds()), "µs/event-max")
}
