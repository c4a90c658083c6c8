package session

import (
	"encoding/json"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// Typed is a stored event as the typed event it was, for the front ends
// that draw (the REPL, ACP's session/load): the fields its encoding
// carries, nothing else (a command's output is whole in Detail.Output).
// ok is false for a type no front end draws from the log.
func Typed(e agent.StoredEvent) (ev Event, ok bool) {
	var d struct {
		Turn      int                        `json:"turn"`
		Question  string                     `json:"question"`
		Text      string                     `json:"text"`
		CallID    string                     `json:"call_id"`
		WindowID  string                     `json:"window_id"`
		ActionID  string                     `json:"action_id"`
		Params    map[string]json.RawMessage `json:"params"`
		Title     string                     `json:"title"`
		Kind      string                     `json:"kind"`
		Paths     []string                   `json:"paths"`
		Status    string                     `json:"status"`
		Output    string                     `json:"output"`
		ExitCode  *int                       `json:"exit_code"`
		Step      int                        `json:"step"`
		IsError   bool                       `json:"is_error"`
		Result    string                     `json:"result"`
		Error     string                     `json:"error"`
		SessionID string                     `json:"session_id"`
		NumSteps  int                        `json:"num_steps"`
		Duration  int64                      `json:"duration_ms"`
		Usage     Usage                      `json:"usage"`
		Unread    []string                   `json:"unread"`
		RequestID string                     `json:"request_id"`
		Decision  string                     `json:"decision"`
		By        string                     `json:"by"`
	}
	if json.Unmarshal(e.Data, &d) != nil {
		return nil, false
	}
	call := protocol.Call{ID: d.CallID, WindowID: d.WindowID, ActionID: d.ActionID, Params: d.Params}
	switch e.Type {
	case "turn":
		return Turn{Turn: d.Turn, Question: d.Question}, true
	case "text":
		return Text{Text: d.Text}, true
	case "steer":
		return Steer{Turn: d.Turn, Text: d.Text, Step: d.Step}, true
	case "tool_call":
		return ToolCall{Call: call, Desc: windows.Description{Title: d.Title, Kind: d.Kind, Paths: d.Paths}}, true
	case "tool_result":
		return ToolResult{Call: call, Result: protocol.Result{Status: d.Status, Text: d.Text},
			Detail: windows.Result{Output: d.Output, ExitCode: d.ExitCode, Failed: d.ExitCode != nil && *d.ExitCode != 0}}, true
	case "decision":
		return Decision{RequestID: d.RequestID, Decision: d.Decision, By: d.By}, true
	case "result":
		r := Result{Outcome: Answered, Answer: d.Result, Error: d.Error, SessionID: d.SessionID, Steps: d.NumSteps,
			Usage: d.Usage, Unread: d.Unread}
		r.Duration = time.Duration(d.Duration) * time.Millisecond
		if d.IsError {
			r.Outcome = Failed
			if d.Error == "interrupted" {
				r.Outcome = Interrupted
			}
		}
		return r, true
	}
	return nil, false
}
