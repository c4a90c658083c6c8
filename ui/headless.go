package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// OutputFormat is what pipe mode writes on stdout (PROTOCOL.md §6).
type OutputFormat string

const (
	FormatText       OutputFormat = "text"        // the answer alone
	FormatJSON       OutputFormat = "json"        // one result object at the end
	FormatStreamJSON OutputFormat = "stream-json" // one event object a line, the result last
)

// ParseOutputFormat reads --output-format.
func ParseOutputFormat(s string) (OutputFormat, error) {
	switch f := OutputFormat(s); f {
	case FormatText, FormatJSON, FormatStreamJSON:
		return f, nil
	}
	return "", fmt.Errorf("--output-format must be text, json or stream-json, got %q", s)
}

// Denial is an action the run was refused, as listed in the result.
type Denial struct {
	WindowID string `json:"window_id"`
	ActionID string `json:"action_id"`
	Reason   string `json:"reason"`
}

// TokenUsage sums the run's requests.
type TokenUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	CachedTokens     int64 `json:"cached_tokens"`
}

// ResultObject is the last object of json and stream-json output.
type ResultObject struct {
	Type       string     `json:"type"` // "result"
	IsError    bool       `json:"is_error"`
	Result     string     `json:"result"`
	Error      string     `json:"error,omitempty"`
	SessionID  string     `json:"session_id"`
	NumSteps   int        `json:"num_steps"`
	DurationMS int64      `json:"duration_ms"`
	Usage      TokenUsage `json:"usage"`
	Denials    []Denial   `json:"denials"`
}

// Headless writes a pipe-mode run as JSON on stdout. Its Event method is
// the agent's event consumer and Notice takes the client's notes; both may
// be called from any goroutine.
type Headless struct {
	format OutputFormat
	start  time.Time

	mu      sync.Mutex
	enc     *json.Encoder
	err     error // the first write error; later writes are skipped
	session string
	steps   int
	usage   TokenUsage
	denials []Denial
}

// NewHeadless writes format (json or stream-json) on stdout; the run's
// duration counts from now.
func NewHeadless(format OutputFormat, stdout io.Writer) *Headless {
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false) // a shell command's "a && b" stays readable
	return &Headless{format: format, start: time.Now(), enc: enc, denials: []Denial{}}
}

// Init records the session and, in stream-json, writes the first line.
func (h *Headless) Init(sessionID, model, cwd string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.session = sessionID
	h.writeLocked(struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
		Model     string `json:"model"`
		Cwd       string `json:"cwd"`
	}{"init", sessionID, model, cwd})
}

// Event takes one agent event.
func (h *Headless) Event(ev agent.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch ev.Kind {
	case agent.EventUsage:
		h.steps++
		h.usage.PromptTokens += ev.Usage.PromptTokens
		h.usage.CompletionTokens += ev.Usage.CompletionTokens
		h.usage.CachedTokens += ev.Usage.CachedTokens
	case agent.EventReply:
		// Only the words between actions: the final answer is the result.
		if p := ev.Parsed; p.HasCalls() && p.Text != "" {
			h.writeLocked(textEvent{"text", p.Text})
		}
	case agent.EventCall:
		params := ev.Call.Params
		if params == nil {
			params = map[string]json.RawMessage{}
		}
		h.writeLocked(struct {
			Type     string                     `json:"type"`
			CallID   string                     `json:"call_id"`
			WindowID string                     `json:"window_id"`
			ActionID string                     `json:"action_id"`
			Params   map[string]json.RawMessage `json:"params"`
		}{"tool_call", ev.Call.ID, ev.Call.WindowID, ev.Call.ActionID, params})
	case agent.EventResult:
		r := ev.Result
		if r.Status == protocol.StatusDenied {
			h.denials = append(h.denials, Denial{WindowID: r.WindowID, ActionID: r.ActionID, Reason: strings.Join(strings.Fields(r.Text), " ")})
		}
		h.writeLocked(struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
			Status string `json:"status"`
			Text   string `json:"text"`
			Output string `json:"output,omitempty"`
		}{"tool_result", r.CallID, r.Status, r.Text, resultOutput(ev.Detail)})
	case agent.EventCompressed:
		if ev.Compression != nil {
			h.noticeLocked("compression", compressionLine(ev.Compression))
		}
	case agent.EventNotice:
		h.noticeLocked("hint", ev.Text)
	}
}

// resultOutput is what an action produced for a person to read: an
// edit's unified diff, a command's output (already cut to the output limit
// and redacted, as the model sees it); "" when there is neither.
func resultOutput(d windows.Result) string {
	switch {
	case d.Diff != "" && d.Output != "":
		return strings.TrimRight(d.Diff, "\n") + "\n" + d.Output
	case d.Diff != "":
		return d.Diff
	}
	return d.Output
}

type textEvent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Notice takes one of the model client's notes (retries, fallbacks).
func (h *Headless) Notice(s string) {
	kind := "info"
	switch {
	case strings.HasPrefix(s, "retrying"):
		kind = "retry"
	case strings.HasPrefix(s, "falling back"):
		kind = "fallback"
	case strings.HasPrefix(s, "the server is still processing"):
		kind = "slow"
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.noticeLocked(kind, s)
}

func (h *Headless) noticeLocked(kind, text string) {
	h.writeLocked(struct {
		Type string `json:"type"`
		Kind string `json:"kind"`
		Text string `json:"text"`
	}{"notice", kind, text})
}

// TakeNotices makes n send the client's notes here as well as to stderr.
func (h *Headless) TakeNotices(n *Notices, stderr io.Writer) {
	n.redirect(func(s string) {
		fmt.Fprintln(stderr, "aci:", s)
		h.Notice(s)
	})
}

// writeLocked writes one stream-json line; json output waits for the end.
func (h *Headless) writeLocked(v any) {
	if h.format == FormatStreamJSON {
		h.encodeLocked(v)
	}
}

func (h *Headless) encodeLocked(v any) {
	if h.err == nil {
		h.err = h.enc.Encode(v)
	}
}

// Finish writes the result object. errMsg is "" when the run answered.
func (h *Headless) Finish(answer, errMsg string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.encodeLocked(ResultObject{
		Type: "result", IsError: errMsg != "", Result: answer, Error: errMsg,
		SessionID: h.session, NumSteps: h.steps, DurationMS: time.Since(h.start).Milliseconds(),
		Usage: h.usage, Denials: h.denials,
	})
	return h.err
}

// RunHeadless answers one question like RunPipe, but stdout carries only
// h's JSON; humans still read progress and errors on stderr. It returns
// the exit code, the same as RunPipe's.
func RunHeadless(ctx context.Context, a Runner, question string, h *Headless, stderr io.Writer, describe func(error) string) int {
	answer, err := a.Run(ctx, question)
	code, msg := ExitOK, ""
	switch {
	case err == nil:
		answer = strings.TrimSpace(answer)
	case ctx.Err() != nil:
		code, msg = ExitInterrupted, "interrupted"
	case errors.Is(err, agent.ErrStepLimit):
		code, msg = ExitFailed, err.Error()
	default:
		code, msg = ExitFailed, describe(err)
	}
	if msg != "" {
		fmt.Fprintln(stderr, "aci:", msg)
	}
	if werr := h.Finish(answer, msg); werr != nil {
		fmt.Fprintln(stderr, "aci: write the result:", werr)
		if code == ExitOK {
			code = ExitFailed
		}
	}
	return code
}
