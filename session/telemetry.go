package session

import (
	"net/url"
	"sync"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/internal/otlp"
	"github.com/aci-dev/aci/protocol"
)

// telemetry turns a session's turns, model requests and actions into
// OTLP spans and sums (docs/protocol.md §11, Telemetry). Attributes carry
// names, numbers and states, never text: no question, answer, command,
// parameter or output, so no secret can reach a collector. A nil
// *telemetry does nothing.
type telemetry struct {
	exp    *otlp.Exporter
	server string // the model endpoint's host
	model  func() string

	mu    sync.Mutex
	trace [16]byte
	turn  *otlp.Span
	req   *otlp.Span
	calls map[string]*otlp.Span
}

func newTelemetry(exp *otlp.Exporter, baseURL string, model func() string) *telemetry {
	if exp == nil {
		return nil
	}
	host := ""
	if u, err := url.Parse(baseURL); err == nil {
		host = u.Hostname()
	}
	return &telemetry{exp: exp, server: host, model: model, calls: map[string]*otlp.Span{}}
}

func (t *telemetry) child(name string, kind otlp.SpanKind, attrs ...otlp.KV) *otlp.Span {
	s := &otlp.Span{Trace: t.trace, ID: otlp.NewSpanID(), Name: name, Kind: kind, Start: time.Now(), Attrs: attrs}
	if t.turn != nil {
		s.Parent = t.turn.ID
	}
	return s
}

func (t *telemetry) finish(s *otlp.Span) {
	s.End = time.Now()
	t.exp.Span(*s)
}

// agentEvent sees the loop's events: model requests and actions.
func (t *telemetry) agentEvent(ev agent.Event) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev.Kind {
	case agent.EventRequest:
		if t.req != nil { // the one before got no usage: it failed
			t.req.Error = "no response"
			t.finish(t.req)
		}
		m := t.model()
		t.req = t.child("chat "+m, otlp.KindClient, otlp.String("gen_ai.operation.name", "chat"),
			otlp.String("gen_ai.system", "openai"), otlp.String("gen_ai.request.model", m), otlp.String("server.address", t.server))
	case agent.EventUsage:
		u := ev.Usage
		if t.req != nil {
			t.req.Attrs = append(t.req.Attrs, otlp.Int("gen_ai.usage.input_tokens", u.PromptTokens),
				otlp.Int("gen_ai.usage.output_tokens", u.CompletionTokens), otlp.Int("aci.usage.cached_tokens", u.CachedTokens))
			if u.Cost.Known() {
				t.req.Attrs = append(t.req.Attrs, otlp.Float("aci.cost_usd", u.Cost.USD))
			}
			t.finish(t.req)
			t.req = nil
		}
		model := otlp.String("gen_ai.request.model", t.model())
		t.exp.Add("aci.tokens", "tokens the model was sent and wrote", "{token}", u.PromptTokens, model, otlp.String("type", "input"))
		t.exp.Add("aci.tokens", "tokens the model was sent and wrote", "{token}", u.CompletionTokens, model, otlp.String("type", "output"))
		t.exp.Add("aci.tokens", "tokens the model was sent and wrote", "{token}", u.CachedTokens, model, otlp.String("type", "cached"))
		if u.Cost.Known() {
			t.exp.Add("aci.cost", "money the model requests cost", "USD", u.Cost.USD, model)
		}
	case agent.EventCall:
		t.calls[ev.Call.ID] = t.child("action "+ev.Call.ActionID, otlp.KindInternal,
			otlp.String("aci.call_id", ev.Call.ID), otlp.String("aci.window_id", ev.Call.WindowID), otlp.String("aci.action_id", ev.Call.ActionID))
	case agent.EventResult:
		s := t.calls[ev.Call.ID]
		delete(t.calls, ev.Call.ID)
		status := string(ev.Result.Status)
		if s != nil {
			s.Attrs = append(s.Attrs, otlp.String("aci.status", status))
			if ev.Detail.ExitCode != nil {
				s.Attrs = append(s.Attrs, otlp.Int("aci.exit_code", int64(*ev.Detail.ExitCode)))
			}
			if ev.Result.Status == protocol.StatusError {
				s.Error = "the action failed"
			}
			t.finish(s)
		}
		t.exp.Add("aci.actions", "actions run, by result", "{action}", int64(1), otlp.String("aci.action_id", ev.Call.ActionID), otlp.String("aci.status", status))
		if ev.Result.Status == protocol.StatusDenied {
			t.exp.Add("aci.denials", "actions refused", "{action}", int64(1), otlp.String("aci.action_id", ev.Call.ActionID))
		}
	}
}

// event sees the session's own events: a turn begins, a question is
// decided, a turn ends.
func (t *telemetry) event(sessionID string, e Event) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e := e.(type) {
	case Turn:
		t.trace = otlp.NewTraceID()
		t.turn = nil
		t.turn = t.child("turn", otlp.KindInternal, otlp.String("aci.session_id", sessionID), otlp.Int("aci.turn", int64(e.Turn)))
	case Decision:
		t.exp.Add("aci.decisions", "questions answered", "{decision}", int64(1), otlp.String("aci.decision", e.Decision), otlp.String("aci.by", e.By))
	case Result:
		if t.turn == nil {
			return
		}
		if t.req != nil {
			t.req.Error = "no response"
			t.finish(t.req)
			t.req = nil
		}
		s := t.turn
		s.Attrs = append(s.Attrs, otlp.String("aci.outcome", string(e.Outcome)), otlp.Int("aci.steps", int64(e.Steps)),
			otlp.Int("gen_ai.usage.input_tokens", e.Usage.PromptTokens), otlp.Int("gen_ai.usage.output_tokens", e.Usage.CompletionTokens),
			otlp.Int("aci.usage.cached_tokens", e.Usage.CachedTokens), otlp.Int("aci.denials", int64(len(e.Denials))))
		if e.Money.TurnKnown {
			s.Attrs = append(s.Attrs, otlp.Float("aci.cost_usd", e.Money.TurnUSD))
		}
		if e.Outcome != Answered {
			s.Error = string(e.Outcome)
			if e.Cause != "" {
				s.Error += ": " + e.Cause
			}
		}
		t.finish(s)
		t.turn = nil
		t.exp.Add("aci.turns", "turns, by outcome", "{turn}", int64(1), otlp.String("aci.outcome", string(e.Outcome)))
		t.exp.Flush()
	}
}
