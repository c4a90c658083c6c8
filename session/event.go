package session

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// Event is one thing that happened in a session. The set is closed: Text,
// ToolCall, Output, ToolResult, Window, Approval, Decision, State, Steer,
// Notice, Turn and Result (and Recorded, one of these read back from a
// transcript, eventlog.go). Each has exactly one wire encoding, its MarshalJSON
// (the objects of PROTOCOL.md §6 and §7), used by stream-json, json and
// the server's events alike; front ends that draw (the REPL, pipe
// progress, ACP) read the typed fields, some of which no wire carries.
type Event interface {
	// Type is the event's name on the wire: "text", "tool_call", …; ""
	// for the events only inline consumers see (a model's reasoning).
	Type() string
	event()
}

// Numbered is an event as subscribers get it: with its id, rising within
// the session (SSE's id:).
type Numbered struct {
	ID int64
	Event
}

// Text is a piece of the model's words, tool calls filtered out and
// secrets removed (also across pieces).
type Text struct {
	Text string
	// Reasoning marks the model's reasoning: shown dim by the REPL, sent to
	// editors as thoughts, on no wire.
	Reasoning bool
	// Calling says the model began writing a tool call (Text is then
	// empty): the REPL shows it is writing one. On no wire.
	Calling bool
}

// ToolCall is an action about to run.
type ToolCall struct {
	Call  protocol.Call
	Title string // the window's title, for people
	// Desc is the call as a person reads it, as its window describes it
	// (windows.Describer): every front end shows these words.
	Desc windows.Description
}

// Output is a piece of a running command's output (stdout and stderr as
// a terminal shows them, ANSI codes stripped, secrets removed), sent
// before its ToolResult. Pieces join; a background task's have TaskID
// and no CallID.
type Output struct {
	CallID   string
	TaskID   string
	WindowID string
	Text     string
}

// ToolResult is an action that ended: its status and text as the model
// reads them, and Detail, what it did for a person (output, diff, file).
type ToolResult struct {
	Call   protocol.Call
	Result protocol.Result
	Detail windows.Result
}

// Window is a window's content when it opens, while a command in it runs
// and after each batch; Closed when it closed.
type Window struct {
	ID, App, Title, Content string
	Closed                  bool
	// Running marks the content of a window while a command runs in it
	// (kept for replay apart from the turns' events).
	Running bool
	// Progress is how a window working in the background goes (an agent
	// window: running, answered, failed; windows.View.Progress): front
	// ends read it here, never from the content.
	Progress string
}

// Approval is a question waiting for Decide (sessions with no Approver).
type Approval struct {
	RequestID, WindowID, ActionID string
	Params                        any
	Reason, Kind, Subject, Diff   string
	// Title is the call asked about as a person reads it ("run rm -rf
	// build"), its tool_call's title.
	Title string
}

// StateEvent is the loop's state changing.
type StateEvent struct{ State State }

// Steer says a message added to the running turn reached the model, in the
// turn's Step-th model request (counted from 1).
type Steer struct {
	Turn int
	Text string
	Step int
}

// Notice is one of aci's own notes: a retry, a compression, a hint.
type Notice struct {
	Kind, Text string
	// Client marks the model client's own notes (retries, fallbacks),
	// which the process also prints where a person reads them.
	Client bool
	// RequestID and By: a question the terminal and the clients were both
	// asked was answered by By ("terminal"), kind "approval".
	RequestID, By string
}

// Turn says a turn began.
type Turn struct {
	Turn     int
	Question string
}

// Outcome is how a turn ended; front ends map it to their exit codes.
type Outcome string

// The outcomes.
const (
	Answered    Outcome = "answered"
	Interrupted Outcome = "interrupted" // cancelled: Ctrl-C, Cancel, a signal
	Failed      Outcome = "failed"      // an error; Error says which
)

// Denial is an action the turn was refused, as the result lists it.
type Denial struct {
	WindowID string `json:"window_id"`
	ActionID string `json:"action_id"`
	Reason   string `json:"reason"`
}

// Usage sums a turn's model requests.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	CachedTokens     int64 `json:"cached_tokens"`
}

// Result ends a turn: the one place that decides how it ended.
type Result struct {
	Outcome   Outcome
	Answer    string
	Error     string // one line, when the turn did not answer
	Err       error  // the error itself, for front ends (nil when answered)
	SessionID string
	Steps     int
	Duration  time.Duration
	Usage     Usage
	Money     Money // the turn's and the session's cost (money.go)
	Denials   []Denial
	// Unread are steering messages the model had not seen when the turn
	// was cancelled.
	Unread []string
	// Cause says more of a failure, for front ends with their own words
	// for it (ACP's stop reasons): CauseStepLimit, CauseRefused or "".
	Cause string
}

// The causes of a failed turn a front end may tell apart.
const (
	CauseStepLimit = "step_limit" // the turn made its most model requests
	CauseRefused   = "refused"    // the provider's content filter refused
)

// wired says whether a Text goes on a wire: not reasoning, not the mark
// of a tool call begun, not empty.
func (e Text) wired() bool { return !e.Reasoning && !e.Calling && e.Text != "" }

func (Text) Type() string       { return "text" }
func (ToolCall) Type() string   { return "tool_call" }
func (Output) Type() string     { return "output" }
func (ToolResult) Type() string { return "tool_result" }
func (Window) Type() string     { return "window" }
func (Approval) Type() string   { return "approval" }
func (StateEvent) Type() string { return "state" }
func (Steer) Type() string      { return "steer" }
func (Notice) Type() string     { return "notice" }
func (Turn) Type() string       { return "turn" }
func (Result) Type() string     { return "result" }

func (Text) event()       {}
func (ToolCall) event()   {}
func (Output) event()     {}
func (ToolResult) event() {}
func (Window) event()     {}
func (Approval) event()   {}
func (StateEvent) event() {}
func (Steer) event()      {}
func (Notice) event()     {}
func (Turn) event()       {}
func (Result) event()     {}

// Wire says which wire an event goes on.
type Wire int

// The wires.
const (
	WireSSE        Wire = iota // the server's events: every type
	WireStreamJSON             // --output-format stream-json (§6)
	WireJSON                   // --output-format json: the result alone
)

// OnWire reports whether ev is sent on w: the one place that filters.
func OnWire(ev Event, w Wire) bool {
	if t, ok := ev.(Text); ok && !t.wired() {
		return false
	}
	switch w {
	case WireStreamJSON:
		switch ev.(type) {
		case Text, ToolCall, Output, ToolResult, Notice, Result:
			return true
		}
		return false
	case WireJSON:
		_, ok := ev.(Result)
		return ok
	}
	return true
}

// marshal encodes v without escaping HTML: a shell command's "a && b"
// stays readable.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func (e Text) MarshalJSON() ([]byte, error) {
	return marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", e.Text})
}

func (e ToolCall) MarshalJSON() ([]byte, error) {
	params := e.Call.Params
	if params == nil {
		params = map[string]json.RawMessage{}
	}
	return marshal(struct {
		Type     string                     `json:"type"`
		CallID   string                     `json:"call_id"`
		WindowID string                     `json:"window_id"`
		ActionID string                     `json:"action_id"`
		Params   map[string]json.RawMessage `json:"params"`
		Title    string                     `json:"title,omitempty"`
		Kind     string                     `json:"kind,omitempty"`
		Paths    []string                   `json:"paths,omitempty"`
	}{"tool_call", e.Call.ID, e.Call.WindowID, e.Call.ActionID, params, e.Desc.Title, e.Desc.Kind, e.Desc.Paths})
}

func (e Output) MarshalJSON() ([]byte, error) {
	return marshal(struct {
		Type     string `json:"type"`
		CallID   string `json:"call_id,omitempty"`
		TaskID   string `json:"task_id,omitempty"`
		WindowID string `json:"window_id"`
		Text     string `json:"text"`
	}{"output", e.CallID, e.TaskID, e.WindowID, e.Text})
}

// PersonOutput is what an action produced for a person to read: an edit's
// unified diff, a command's output (cut and redacted as the model sees
// it), both when there are both; "" when there is neither.
func PersonOutput(d windows.Result) string { return d.ForPerson() }

func (e ToolResult) MarshalJSON() ([]byte, error) {
	return marshal(struct {
		Type     string `json:"type"`
		CallID   string `json:"call_id"`
		Status   string `json:"status"`
		Text     string `json:"text"`
		Output   string `json:"output,omitempty"`
		ExitCode *int   `json:"exit_code,omitempty"`
	}{"tool_result", e.Call.ID, e.Result.Status, e.Result.Text, PersonOutput(e.Detail), e.Detail.ExitCode})
}

func (e Window) MarshalJSON() ([]byte, error) {
	return marshal(struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		App     string `json:"app"`
		Title   string `json:"title"`
		Content string `json:"content"`
		Closed  bool   `json:"closed,omitempty"`
	}{"window", e.ID, e.App, e.Title, e.Content, e.Closed})
}

func (e Approval) MarshalJSON() ([]byte, error) {
	params := e.Params
	if params == nil {
		params = map[string]any{}
	}
	return marshal(struct {
		Type      string `json:"type"`
		RequestID string `json:"request_id"`
		WindowID  string `json:"window_id"`
		ActionID  string `json:"action_id"`
		Params    any    `json:"params"`
		Reason    string `json:"reason"`
		Kind      string `json:"kind"`
		Subject   string `json:"subject"`
		Diff      string `json:"diff,omitempty"`
		Title     string `json:"title,omitempty"`
	}{"approval", e.RequestID, e.WindowID, e.ActionID, params, e.Reason, e.Kind, e.Subject, e.Diff, e.Title})
}

func (e StateEvent) MarshalJSON() ([]byte, error) {
	return marshal(struct {
		Type  string `json:"type"`
		State State  `json:"state"`
	}{"state", e.State})
}

func (e Steer) MarshalJSON() ([]byte, error) {
	return marshal(struct {
		Type string `json:"type"`
		Turn int    `json:"turn"`
		Text string `json:"text"`
		Step int    `json:"step"`
	}{"steer", e.Turn, e.Text, e.Step})
}

func (e Notice) MarshalJSON() ([]byte, error) {
	return marshal(struct {
		Type      string `json:"type"`
		Kind      string `json:"kind"`
		Text      string `json:"text"`
		RequestID string `json:"request_id,omitempty"`
		By        string `json:"by,omitempty"`
	}{"notice", e.Kind, e.Text, e.RequestID, e.By})
}

func (e Turn) MarshalJSON() ([]byte, error) {
	return marshal(struct {
		Type     string `json:"type"`
		Turn     int    `json:"turn"`
		Question string `json:"question"`
	}{"turn", e.Turn, e.Question})
}

func (e Result) MarshalJSON() ([]byte, error) {
	denials := e.Denials
	if denials == nil {
		denials = []Denial{}
	}
	return marshal(struct {
		Type       string   `json:"type"`
		IsError    bool     `json:"is_error"`
		Result     string   `json:"result"`
		Error      string   `json:"error,omitempty"`
		SessionID  string   `json:"session_id"`
		NumSteps   int      `json:"num_steps"`
		DurationMS int64    `json:"duration_ms"`
		Usage      Usage    `json:"usage"`
		Cost       *float64 `json:"total_cost_usd"`
		Denials    []Denial `json:"denials"`
		Unread     []string `json:"unread,omitempty"`
	}{"result", e.Outcome != Answered, e.Answer, e.Error, e.SessionID, e.Steps, e.Duration.Milliseconds(), e.Usage, e.Money.TotalCostUSD(), denials, e.Unread})
}
