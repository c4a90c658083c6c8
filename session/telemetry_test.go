package session

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/internal/otlp"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// BenchmarkTelemetryAction is what telemetry adds to one action: its
// span and sums (on) or nothing (off: a nil *telemetry).
func BenchmarkTelemetryAction(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	code := 0
	call := agent.Event{Kind: agent.EventCall, Call: protocol.Call{ID: "call_1_1", WindowID: "bash_1", ActionID: "run"}}
	res := agent.Event{Kind: agent.EventResult, Call: call.Call, Result: protocol.Result{Status: protocol.StatusOK}, Detail: windows.Result{ExitCode: &code}}
	for _, on := range []bool{false, true} {
		var tel *telemetry
		name := "off"
		if on {
			name = "on"
			exp := otlp.New(otlp.Config{Traces: srv.URL + "/v1/traces", Metrics: srv.URL + "/v1/metrics", Protocol: otlp.ProtoBuf, Timeout: time.Second, Service: "aci"}, nil)
			defer exp.Shutdown()
			tel = newTelemetry(exp, "http://127.0.0.1:1/v1", func() string { return "m" })
			tel.event("s", Turn{Turn: 1})
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				tel.agentEvent(call)
				tel.agentEvent(res)
			}
		})
	}
}
