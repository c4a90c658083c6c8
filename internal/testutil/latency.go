package testutil

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// StampCommand prints its clock (Unix nanoseconds) on a line every 20 ms,
// 50 times: a command whose lines say when they were written.
const StampCommand = "for i in $(seq 1 50); do date +%s%N; sleep 0.02; done"

// Latencies reads the stamps in text and returns now minus each.
func Latencies(text string, now time.Time) []time.Duration {
	var out []time.Duration
	for _, l := range strings.Split(text, "\n") {
		if ns, err := strconv.ParseInt(strings.TrimSpace(l), 10, 64); err == nil && ns > 0 {
			out = append(out, now.Sub(time.Unix(0, ns)))
		}
	}
	return out
}

// ReportLatency reports p50, p99 and max of lat, in ms; none is a failure.
func ReportLatency(b *testing.B, lat []time.Duration) {
	b.Helper()
	if len(lat) == 0 {
		b.Fatal("no latency measured")
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "ms-p50")
	b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "ms-p99")
	b.ReportMetric(float64(lat[len(lat)-1].Milliseconds()), "ms-max")
}
