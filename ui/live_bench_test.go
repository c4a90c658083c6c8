package ui

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/session"
)

// BenchmarkOutputToREPL measures how long a line a command writes takes
// to be drawn by the REPL's renderer (its live tail, on a terminal with
// colour and spinner): the shell's pipe, the live buffer, the coalescing
// (ten times a second), the session's inline delivery and the drawing.
// Each iteration is a turn whose command prints its clock on a line every
// 20 ms, 50 times.
func BenchmarkOutputToREPL(b *testing.B) {
	srv := fakeai.New(b)
	srv.Handle(func(req fakeai.Request) fakeai.Reply {
		if strings.Contains(req.Last(), "<result") {
			return fakeai.Reply{Content: "done"}
		}
		return fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}},
			fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": testutil.StampCommand}})}
	})
	f := session.NewFactory(session.Config{Client: session.ClientConfig{BaseURL: srv.URL, APIKey: "sk-bench", Model: "m", Stream: true},
		Agent: session.AgentConfig{BasePrompt: "You are aci."}, SessionsDir: b.TempDir()})
	r := newRenderer(io.Discard, true, true)
	var lat []time.Duration
	s, err := f.New(context.Background(), session.Options{Workdir: b.TempDir(), Events: func(ev session.Event) {
		r.event(ev)
		if o, ok := ev.(session.Output); ok {
			lat = append(lat, testutil.Latencies(o.Text, time.Now())...)
		}
	}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for range b.N {
		r.beginTurn()
		if _, err := s.Ask(context.Background(), "stamp"); err != nil {
			b.Fatal(err)
		}
		r.endTurn()
	}
	b.StopTimer()
	testutil.ReportLatency(b, lat)
}
