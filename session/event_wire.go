package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// Each event's one wire encoding (docs/protocol.md §6 and §7) is a wire struct
// below: MarshalJSON fills it from the event, UnmarshalJSON reads the
// event back from it (a stored session's events, eventlog.go). A field no
// wire carries stays empty when read back.

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

// unmarshal reads data into the wire struct w of an event of type typ.
func unmarshal(data []byte, typ string, w any) error {
	if err := json.Unmarshal(data, w); err != nil {
		return fmt.Errorf("read a %s event: %w", typ, err)
	}
	return nil
}

type textWire struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (e Text) MarshalJSON() ([]byte, error) { return marshal(textWire{"text", e.Text}) }

func (e *Text) UnmarshalJSON(data []byte) error {
	var w textWire
	err := unmarshal(data, "text", &w)
	*e = Text{Text: w.Text}
	return err
}

type toolCallWire struct {
	Type     string                     `json:"type"`
	CallID   string                     `json:"call_id"`
	WindowID string                     `json:"window_id"`
	ActionID string                     `json:"action_id"`
	Params   map[string]json.RawMessage `json:"params"`
	Title    string                     `json:"title,omitempty"`
	Kind     string                     `json:"kind,omitempty"`
	Paths    []string                   `json:"paths,omitempty"`
}

func (e ToolCall) MarshalJSON() ([]byte, error) {
	params := e.Call.Params
	if params == nil {
		params = map[string]json.RawMessage{}
	}
	return marshal(toolCallWire{"tool_call", e.Call.ID, e.Call.WindowID, e.Call.ActionID, params, e.Desc.Title, e.Desc.Kind, e.Desc.Paths})
}

func (e *ToolCall) UnmarshalJSON(data []byte) error {
	var w toolCallWire
	err := unmarshal(data, "tool_call", &w)
	*e = ToolCall{Call: protocol.Call{ID: w.CallID, WindowID: w.WindowID, ActionID: w.ActionID, Params: w.Params},
		Desc: windows.Description{Title: w.Title, Kind: w.Kind, Paths: w.Paths}}
	return err
}

type outputWire struct {
	Type     string `json:"type"`
	CallID   string `json:"call_id,omitempty"`
	TaskID   string `json:"task_id,omitempty"`
	WindowID string `json:"window_id"`
	Text     string `json:"text"`
}

func (e Output) MarshalJSON() ([]byte, error) {
	return marshal(outputWire{"output", e.CallID, e.TaskID, e.WindowID, e.Text})
}

func (e *Output) UnmarshalJSON(data []byte) error {
	var w outputWire
	err := unmarshal(data, "output", &w)
	*e = Output{CallID: w.CallID, TaskID: w.TaskID, WindowID: w.WindowID, Text: w.Text}
	return err
}

// PersonOutput is what an action produced for a person to read: an edit's
// unified diff, a command's output (cut and redacted as the model sees
// it), both when there are both; "" when there is neither.
func PersonOutput(d windows.Result) string { return d.ForPerson() }

type toolResultWire struct {
	Type     string `json:"type"`
	CallID   string `json:"call_id"`
	Status   string `json:"status"`
	Text     string `json:"text"`
	Output   string `json:"output,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
}

func (e ToolResult) MarshalJSON() ([]byte, error) {
	return marshal(toolResultWire{"tool_result", e.Call.ID, e.Result.Status, e.Result.Text, PersonOutput(e.Detail), e.Detail.ExitCode})
}

// UnmarshalJSON reads a tool_result back: what it did for a person is
// whole in Detail.Output (a diff and an output were sent as one text).
func (e *ToolResult) UnmarshalJSON(data []byte) error {
	var w toolResultWire
	err := unmarshal(data, "tool_result", &w)
	*e = ToolResult{Call: protocol.Call{ID: w.CallID}, Result: protocol.Result{Status: w.Status, Text: w.Text},
		Detail: windows.Result{Output: w.Output, ExitCode: w.ExitCode, Failed: w.ExitCode != nil && *w.ExitCode != 0}}
	return err
}

type windowWire struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	App     string `json:"app"`
	Title   string `json:"title"`
	Content string `json:"content"`
	Closed  bool   `json:"closed,omitempty"`
}

func (e Window) MarshalJSON() ([]byte, error) {
	return marshal(windowWire{"window", e.ID, e.App, e.Title, e.Content, e.Closed})
}

func (e *Window) UnmarshalJSON(data []byte) error {
	var w windowWire
	err := unmarshal(data, "window", &w)
	*e = Window{ID: w.ID, App: w.App, Title: w.Title, Content: w.Content, Closed: w.Closed}
	return err
}

type approvalWire struct {
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
}

func (e Approval) MarshalJSON() ([]byte, error) {
	params := e.Params
	if params == nil {
		params = map[string]any{}
	}
	return marshal(approvalWire{"approval", e.RequestID, e.WindowID, e.ActionID, params, e.Reason, e.Kind, e.Subject, e.Diff, e.Title})
}

func (e *Approval) UnmarshalJSON(data []byte) error {
	var w approvalWire
	err := unmarshal(data, "approval", &w)
	*e = Approval{RequestID: w.RequestID, WindowID: w.WindowID, ActionID: w.ActionID, Params: w.Params,
		Reason: w.Reason, Kind: w.Kind, Subject: w.Subject, Diff: w.Diff, Title: w.Title}
	return err
}

type stateWire struct {
	Type  string `json:"type"`
	State State  `json:"state"`
}

func (e StateEvent) MarshalJSON() ([]byte, error) { return marshal(stateWire{"state", e.State}) }

func (e *StateEvent) UnmarshalJSON(data []byte) error {
	var w stateWire
	err := unmarshal(data, "state", &w)
	*e = StateEvent{State: w.State}
	return err
}

type steerWire struct {
	Type string `json:"type"`
	Turn int    `json:"turn"`
	Text string `json:"text"`
	Step int    `json:"step"`
}

func (e Steer) MarshalJSON() ([]byte, error) {
	return marshal(steerWire{"steer", e.Turn, e.Text, e.Step})
}

func (e *Steer) UnmarshalJSON(data []byte) error {
	var w steerWire
	err := unmarshal(data, "steer", &w)
	*e = Steer{Turn: w.Turn, Text: w.Text, Step: w.Step}
	return err
}

type noticeWire struct {
	Type      string `json:"type"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	RequestID string `json:"request_id,omitempty"`
	By        string `json:"by,omitempty"`
}

func (e Notice) MarshalJSON() ([]byte, error) {
	return marshal(noticeWire{"notice", e.Kind, e.Text, e.RequestID, e.By})
}

func (e *Notice) UnmarshalJSON(data []byte) error {
	var w noticeWire
	err := unmarshal(data, "notice", &w)
	*e = Notice{Kind: w.Kind, Text: w.Text, RequestID: w.RequestID, By: w.By}
	return err
}

type turnWire struct {
	Type     string `json:"type"`
	Turn     int    `json:"turn"`
	Question string `json:"question"`
}

func (e Turn) MarshalJSON() ([]byte, error) { return marshal(turnWire{"turn", e.Turn, e.Question}) }

func (e *Turn) UnmarshalJSON(data []byte) error {
	var w turnWire
	err := unmarshal(data, "turn", &w)
	*e = Turn{Turn: w.Turn, Question: w.Question}
	return err
}

type resultWire struct {
	Type       string          `json:"type"`
	IsError    bool            `json:"is_error"`
	Outcome    Outcome         `json:"outcome"`
	Limit      string          `json:"limit,omitempty"`
	Cause      string          `json:"cause,omitempty"`
	Result     string          `json:"result"`
	Structured json.RawMessage `json:"structured_output,omitempty"`
	Error      string          `json:"error,omitempty"`
	SessionID  string          `json:"session_id"`
	NumSteps   int             `json:"num_steps"`
	DurationMS int64           `json:"duration_ms"`
	Usage      Usage           `json:"usage"`
	Cost       *float64        `json:"total_cost_usd"`
	Denials    []Denial        `json:"denials"`
	Unread     []string        `json:"unread,omitempty"`
}

func (e Result) MarshalJSON() ([]byte, error) {
	denials := e.Denials
	if denials == nil {
		denials = []Denial{}
	}
	return marshal(resultWire{"result", e.Outcome != Answered, e.Outcome, e.Limit, e.Cause, e.Answer, e.Structured, e.Error, e.SessionID,
		e.Steps, e.Duration.Milliseconds(), e.Usage, e.Money.TotalCostUSD(), denials, e.Unread})
}

// UnmarshalJSON reads a result back. One stored before results carried
// their outcome (an older aci) is answered, or failed; "interrupted" was
// its error's text then (the one place that reads it, see oldOutcome).
func (e *Result) UnmarshalJSON(data []byte) error {
	var w resultWire
	err := unmarshal(data, "result", &w)
	*e = Result{Outcome: w.Outcome, Limit: w.Limit, Cause: w.Cause, Answer: w.Result, Structured: w.Structured, Error: w.Error, SessionID: w.SessionID,
		Steps: w.NumSteps, Duration: time.Duration(w.DurationMS) * time.Millisecond, Usage: w.Usage, Denials: w.Denials, Unread: w.Unread}
	if w.Cost != nil { // the turn's cost as it was sent; the session's is not stored
		e.Money = Money{TurnUSD: *w.Cost, TurnKnown: true}
	}
	if e.Outcome == "" {
		e.Outcome = oldOutcome(w.IsError, w.Error)
	}
	return err
}

type decisionWire struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Decision  string `json:"decision"`
	By        string `json:"by"`
}

func (e Decision) MarshalJSON() ([]byte, error) {
	return marshal(decisionWire{"decision", e.RequestID, e.Decision, e.By})
}

func (e *Decision) UnmarshalJSON(data []byte) error {
	var w decisionWire
	err := unmarshal(data, "decision", &w)
	*e = Decision{RequestID: w.RequestID, Decision: w.Decision, By: w.By}
	return err
}

type modeWire struct {
	Type      string `json:"type"`
	Mode      string `json:"mode"`
	PlanReady bool   `json:"plan_ready,omitempty"`
}

func (e ModeEvent) MarshalJSON() ([]byte, error) {
	return marshal(modeWire{"mode", string(e.Mode), e.PlanReady})
}

func (e *ModeEvent) UnmarshalJSON(data []byte) error {
	var w modeWire
	err := unmarshal(data, "mode", &w)
	*e = ModeEvent{Mode: windows.PermMode(w.Mode), PlanReady: w.PlanReady}
	return err
}

// decodeAs reads data as an event of type T.
func decodeAs[T Event](data []byte) (Event, error) {
	var e T
	err := json.Unmarshal(data, &e)
	return e, err
}

// decoders are the event types by their wire name: the one table Decode
// reads.
var decoders = map[string]func([]byte) (Event, error){
	"text": decodeAs[Text], "tool_call": decodeAs[ToolCall], "output": decodeAs[Output],
	"tool_result": decodeAs[ToolResult], "window": decodeAs[Window], "approval": decodeAs[Approval],
	"state": decodeAs[StateEvent], "steer": decodeAs[Steer], "notice": decodeAs[Notice],
	"turn": decodeAs[Turn], "result": decodeAs[Result], "decision": decodeAs[Decision], "mode": decodeAs[ModeEvent],
}

// Decode is the event of type typ that data encodes.
func Decode(typ string, data []byte) (Event, error) {
	dec, ok := decoders[typ]
	if !ok {
		return nil, fmt.Errorf("unknown event type %q", typ)
	}
	return dec(data)
}
