package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP receiver on loopback that decodes what it
// gets with opentelemetry-proto's official types.
type otlpReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics []*metricspb.Metric
	reqs    int
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if req.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("content type %q", req.Header.Get("Content-Type"))
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.reqs++
		switch req.URL.Path {
		case "/v1/traces":
			var td tracepb.TracesData
			if err := proto.Unmarshal(body, &td); err != nil {
				t.Errorf("traces: %v", err)
			}
			for _, rs := range td.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					r.spans = append(r.spans, ss.Spans...)
				}
			}
		case "/v1/metrics":
			var md metricspb.MetricsData
			if err := proto.Unmarshal(body, &md); err != nil {
				t.Errorf("metrics: %v", err)
			}
			for _, rm := range md.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					r.metrics = append(r.metrics, sm.Metrics...)
				}
			}
		default:
			t.Errorf("path %s", req.URL.Path)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func attr(kvs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

func TestTelemetryOverOTLP(t *testing.T) {
	dir := t.TempDir()
	rcv := newOTLPReceiver(t)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			openBash,
			bashRun("echo hunter2-topsecret; exit 3"),
		), PromptTokens: 1000, CompletionTokens: 40},
		fakeai.Reply{Content: "It failed with 3.", PromptTokens: 1200, CompletionTokens: 10, CachedTokens: 900},
	)
	aciOK(t, dir, srv, "", []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.URL, "DB_PASSWORD=hunter2-topsecret"}, "-p", "run it")
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	names := map[string]*tracepb.Span{}
	for _, s := range rcv.spans {
		names[s.Name] = s
		for _, kv := range s.Attributes {
			if v := kv.Value.GetStringValue(); strings.Contains(v, testKey) || strings.Contains(v, "hunter2") || strings.Contains(v, "echo") {
				t.Errorf("span %s attribute %s carries text: %q", s.Name, kv.Key, v)
			}
		}
	}
	turn, chat, action := names["turn"], names["chat test-model"], names["action run"]
	if turn == nil || chat == nil || action == nil || len(rcv.spans) != 5 {
		t.Fatalf("spans %v", names)
	}
	if attr(turn.Attributes, "aci.outcome").GetStringValue() != "answered" || attr(turn.Attributes, "gen_ai.usage.input_tokens").GetIntValue() != 2200 {
		t.Errorf("turn %v", turn.Attributes)
	}
	if string(chat.ParentSpanId) != string(turn.SpanId) || string(action.TraceId) != string(turn.TraceId) {
		t.Errorf("spans are not the turn's children")
	}
	if attr(action.Attributes, "aci.exit_code").GetIntValue() != 3 || attr(action.Attributes, "aci.status").GetStringValue() != "ok" {
		t.Errorf("action %v", action.Attributes)
	}
	got := map[string]bool{}
	for _, m := range rcv.metrics {
		got[m.Name] = true
	}
	for _, want := range []string{"aci.tokens", "aci.actions", "aci.turns"} {
		if !got[want] {
			t.Errorf("no metric %s in %v", want, got)
		}
	}
}

// TestTelemetryOffSendsNothing: a workspace .env cannot turn export on,
// and with nothing set nothing is sent.
func TestTelemetryOffSendsNothing(t *testing.T) {
	dir := t.TempDir()
	rcv := newOTLPReceiver(t)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.URL+"\n"), 0o644)
	srv := fakeai.New(t, fakeai.Reply{Content: "hi"})
	if r := aci(t, dir, srv, "", nil, "-p", "hi"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	time.Sleep(100 * time.Millisecond)
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if rcv.reqs != 0 {
		t.Errorf("%d requests reached the collector a workspace named", rcv.reqs)
	}
}

// TestTelemetryUnreachableCollector: a collector that does not answer
// neither fails nor stalls the run; the person hears of it once.
func TestTelemetryUnreachableCollector(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t, fakeai.Reply{Content: "hi"})
	start := time.Now()
	r := aci(t, dir, srv, "", []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1"}, "-p", "hi")
	if r.code != 0 || r.stdout != "hi\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, "telemetry"); n != 1 {
		t.Errorf("%d telemetry lines on stderr:\n%s", n, r.stderr)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the run took %s", d)
	}
	bad := aci(t, dir, srv, "", []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}, "-p", "hi")
	if bad.code != 2 || !strings.Contains(bad.stderr, "http/protobuf") {
		t.Errorf("grpc: exit %d\n%s", bad.code, bad.stderr)
	}
}
