package session

import (
	"encoding/json"
	"time"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// Event is one thing that happened in a session. The set is closed: Text,
// ToolCall, Output, ToolResult, Window, Approval, Decision, State, Steer,
// Notice, Turn and Result (and Recorded, one of these read back from a
// transcript, eventlog.go). Each has exactly one wire encoding, its MarshalJSON
// (the objects of docs/protocol.md §6 and §7), used by stream-json, json and
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

// The outcomes (docs/protocol.md §6).
const (
	Answered     Outcome = "answered"
	Interrupted  Outcome = "interrupted" // cancelled: Ctrl-C, Cancel, a signal
	Failed       Outcome = "failed"      // an error; Error says which
	LimitReached Outcome = "limit"       // a limit ended it; Limit says which
)

// The limits a turn may reach (Result.Limit).
const (
	LimitSteps  = "steps"  // the turn made its most model requests
	LimitTurns  = "turns"  // the run made its most turns
	LimitBudget = "budget" // the run spent its money budget
	LimitLoop   = "loop"   // the model repeated itself without progress
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
	// Limit names the limit that ended the turn (outcome LimitReached):
	// LimitSteps, LimitTurns, LimitBudget or LimitLoop.
	Limit string
	// Cause says more of a failure, for front ends with their own words
	// for it (ACP's stop reasons): CauseRefused or "".
	Cause string
	// Structured is the answer as --output-schema checked it.
	Structured json.RawMessage
}

// CauseRefused is a failed turn the provider's content filter refused.
const CauseRefused = "refused"

// Failure reports whether the turn ended without an answer for a reason
// other than the person's (a failure or a limit).
func (r Result) Failure() bool { return r.Outcome == Failed || r.Outcome == LimitReached }

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
