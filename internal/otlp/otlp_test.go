package otlp

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name            string
		vars            map[string]string
		ok              bool
		traces, metrics string
		proto           Protocol
		wantErr         string
	}{
		{"unset", nil, false, "", "", "", ""},
		{"base", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318/"}, true, "http://127.0.0.1:4318/v1/traces", "http://127.0.0.1:4318/v1/metrics", ProtoBuf, ""},
		{"per signal", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://h/t", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, true, "http://h/t", "", JSON, ""},
		{"metrics off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h", "OTEL_METRICS_EXPORTER": "none"}, true, "http://h/v1/traces", "", ProtoBuf, ""},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h", "OTEL_SDK_DISABLED": "true"}, false, "", "", "", ""},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, "", "", "", "http/protobuf and http/json"},
		{"bad url", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, false, "", "", "", "want an http or https URL"},
		{"bad timeout", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h", "OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, false, "", "", "", "milliseconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ok, err := FromEnv(env(tt.vars))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || ok != tt.ok || cfg.Traces != tt.traces || cfg.Metrics != tt.metrics || cfg.Protocol != tt.proto {
				t.Errorf("got %+v ok=%v err=%v", cfg, ok, err)
			}
		})
	}
}

func sample() (Config, []Span, []Metric) {
	cfg := Config{Service: "aci", Resource: []KV{String("deployment.environment", "ci")}, Protocol: ProtoBuf, Timeout: time.Second}
	t0 := time.Unix(1700000000, 5)
	turn := Span{Trace: NewTraceID(), ID: NewSpanID(), Name: "turn", Kind: KindInternal, Start: t0, End: t0.Add(time.Second),
		Attrs: []KV{String("aci.outcome", "failed"), Int("aci.steps", 3), Float("aci.cost_usd", 0.25), Bool("b", true), String("empty", "")}, Error: "failed: step_limit"}
	child := Span{Trace: turn.Trace, ID: NewSpanID(), Parent: turn.ID, Name: "action run", Kind: KindClient, Start: t0, End: t0.Add(time.Millisecond),
		Attrs: []KV{Int("aci.exit_code", -1)}}
	metrics := []Metric{{Name: "aci.tokens", Unit: "{token}", Points: []Point{{Attrs: []KV{String("type", "input")}, Start: t0, Time: t0.Add(time.Second), Value: int64(1200)}}},
		{Name: "aci.cost", Unit: "USD", Points: []Point{{Start: t0, Time: t0, Value: 0.5}}}}
	return cfg, []Span{turn, child}, metrics
}

// TestProtobufDecodesWithTheOfficialTypes decodes what aci writes with
// opentelemetry-proto's generated types. TracesData and MetricsData are
// the Export*ServiceRequest messages' wire twins (field 1, the same
// repeated resource message).
func TestProtobufDecodesWithTheOfficialTypes(t *testing.T) {
	cfg, spans, metrics := sample()
	var td tracepb.TracesData
	if err := proto.Unmarshal(TracesProto(cfg, spans), &td); err != nil {
		t.Fatal(err)
	}
	rs := td.ResourceSpans[0]
	if got := rs.Resource.Attributes[0]; got.Key != "service.name" || got.Value.GetStringValue() != "aci" {
		t.Errorf("resource %v", rs.Resource)
	}
	ss := rs.ScopeSpans[0]
	if ss.Scope.Name != "aci" || len(ss.Spans) != 2 {
		t.Fatalf("scope spans %v", ss)
	}
	turn, child := ss.Spans[0], ss.Spans[1]
	if string(turn.TraceId) != string(spans[0].Trace[:]) || string(child.ParentSpanId) != string(spans[0].ID[:]) || len(turn.ParentSpanId) != 0 {
		t.Errorf("ids: %x %x", turn.TraceId, child.ParentSpanId)
	}
	if turn.Name != "turn" || turn.Kind != tracepb.Span_SPAN_KIND_INTERNAL || child.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("turn %v child %v", turn, child)
	}
	if turn.StartTimeUnixNano != uint64(spans[0].Start.UnixNano()) || turn.EndTimeUnixNano != uint64(spans[0].End.UnixNano()) {
		t.Errorf("times %d %d", turn.StartTimeUnixNano, turn.EndTimeUnixNano)
	}
	if turn.Status.Code != tracepb.Status_STATUS_CODE_ERROR || turn.Status.Message != "failed: step_limit" || child.Status != nil {
		t.Errorf("status %v %v", turn.Status, child.Status)
	}
	a := turn.Attributes
	if a[0].Value.GetStringValue() != "failed" || a[1].Value.GetIntValue() != 3 || a[2].Value.GetDoubleValue() != 0.25 || !a[3].Value.GetBoolValue() {
		t.Errorf("attributes %v", a)
	}
	if _, ok := a[4].Value.Value.(*commonpb.AnyValue_StringValue); !ok {
		t.Errorf("an empty string attribute lost its kind: %v", a[4])
	}
	if child.Attributes[0].Value.GetIntValue() != -1 {
		t.Errorf("negative int %v", child.Attributes[0])
	}

	var md metricspb.MetricsData
	if err := proto.Unmarshal(MetricsProto(cfg, metrics), &md); err != nil {
		t.Fatal(err)
	}
	ms := md.ResourceMetrics[0].ScopeMetrics[0].Metrics
	if len(ms) != 2 || ms[0].Name != "aci.tokens" || ms[0].Unit != "{token}" {
		t.Fatalf("metrics %v", ms)
	}
	sum := ms[0].GetSum()
	if sum == nil || !sum.IsMonotonic || sum.AggregationTemporality != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
		t.Fatalf("sum %v", sum)
	}
	if p := sum.DataPoints[0]; p.GetAsInt() != 1200 || p.Attributes[0].Value.GetStringValue() != "input" || p.StartTimeUnixNano == 0 {
		t.Errorf("point %v", p)
	}
	if p := ms[1].GetSum().DataPoints[0]; p.GetAsDouble() != 0.5 {
		t.Errorf("double point %v", p)
	}
}

func TestJSONFollowsTheOTLPMapping(t *testing.T) {
	cfg, spans, _ := sample()
	var doc struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []map[string]any
			}
		}
	}
	if err := json.Unmarshal(TracesJSON(cfg, spans), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.ResourceSpans[0].ScopeSpans[0].Spans[1]
	if s["traceId"] != hex.EncodeToString(spans[1].Trace[:]) || s["parentSpanId"] != hex.EncodeToString(spans[0].ID[:]) {
		t.Errorf("ids are hex in OTLP/JSON: %v", s)
	}
	if _, ok := s["startTimeUnixNano"].(string); !ok {
		t.Errorf("64-bit times are strings: %v", s["startTimeUnixNano"])
	}
}

// TestUnreachableCollectorCostsNothing: spans queue without waiting on a
// collector that never answers, and shutdown is bounded.
func TestUnreachableCollectorCostsNothing(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer srv.Close()
	defer close(hang)
	cfg, spans, _ := sample()
	cfg.Traces, cfg.Metrics = srv.URL+"/v1/traces", srv.URL+"/v1/metrics"
	cfg.Timeout = time.Minute
	var mu sync.Mutex
	var errs []error
	e := New(cfg, func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() })
	start := time.Now()
	for i := 0; i < 5000; i++ {
		e.Span(spans[0])
		e.Add("aci.actions", "", "", int64(1))
	}
	e.Flush()
	if d := time.Since(start); d > time.Second {
		t.Errorf("queueing 5000 spans took %s", d)
	}
	start = time.Now()
	e.Shutdown()
	if d := time.Since(start); d > shutdownLimit+time.Second {
		t.Errorf("shutdown took %s", d)
	}
}

func TestExporterSendsBoth(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]byte{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.URL.Path+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("X-Team")] = b
		mu.Unlock()
	}))
	defer srv.Close()
	cfg, spans, _ := sample()
	cfg.Traces, cfg.Metrics, cfg.Headers = srv.URL+"/v1/traces", srv.URL+"/v1/metrics", map[string]string{"X-Team": "a b"}
	e := New(cfg, func(err error) { t.Error(err) })
	e.Span(spans[0])
	e.Add("aci.cost", "", "USD", 0.1)
	e.Add("aci.cost", "", "USD", 0.2)
	e.Shutdown()
	var td tracepb.TracesData
	if err := proto.Unmarshal(got["/v1/traces application/x-protobuf a b"], &td); err != nil || len(td.ResourceSpans) != 1 {
		t.Fatalf("traces %v %v (got %d requests)", &td, err, len(got))
	}
	var md metricspb.MetricsData
	if err := proto.Unmarshal(got["/v1/metrics application/x-protobuf a b"], &md); err != nil {
		t.Fatal(err)
	}
	if v := md.ResourceMetrics[0].ScopeMetrics[0].Metrics[0].GetSum().DataPoints[0].GetAsDouble(); v < 0.299 || v > 0.301 {
		t.Errorf("cumulative cost %v", v)
	}
}
