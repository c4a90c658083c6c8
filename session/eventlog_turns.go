package session

import (
	"encoding/json"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// TurnsOf is the turns a session's events tell, as GET /api/sessions/{id}
// lists them: each turn's question, its actions (parameters, how each
// ended, its output and exit code), the messages steered into it, and its
// answer. A turn event numbered n drops the turns from n on: after a
// /reset or a rewind the numbers start again.
func TurnsOf(events []agent.StoredEvent) []agent.TurnInfo {
	var turns []agent.TurnInfo
	at := map[string]int{} // call id → index in the last turn's actions
	for _, e := range events {
		var d struct {
			Turn     int             `json:"turn"`
			Question string          `json:"question"`
			Text     string          `json:"text"`
			CallID   string          `json:"call_id"`
			WindowID string          `json:"window_id"`
			ActionID string          `json:"action_id"`
			Params   json.RawMessage `json:"params"`
			Title    string          `json:"title"`
			Kind     string          `json:"kind"`
			Status   string          `json:"status"`
			Output   string          `json:"output"`
			ExitCode *int            `json:"exit_code"`
			IsError  bool            `json:"is_error"`
			Result   string          `json:"result"`
		}
		if json.Unmarshal(e.Data, &d) != nil {
			continue
		}
		if e.Type == "turn" {
			turns = append(turns[:min(max(d.Turn-1, 0), len(turns))], agent.TurnInfo{Index: d.Turn, Question: d.Question})
			at = map[string]int{}
			continue
		}
		if len(turns) == 0 {
			continue
		}
		t := &turns[len(turns)-1]
		switch e.Type {
		case "tool_call":
			params := any(d.Params)
			if len(d.Params) == 0 {
				params = map[string]any{}
			}
			at[d.CallID] = len(t.Actions)
			var p map[string]json.RawMessage
			json.Unmarshal(d.Params, &p)
			desc := ToolCall{Call: protocol.Call{ID: d.CallID, WindowID: d.WindowID, ActionID: d.ActionID, Params: p},
				Desc: windows.Description{Title: d.Title, Kind: d.Kind}}.Described("")
			t.Actions = append(t.Actions, agent.ActionInfo{CallID: d.CallID, WindowID: d.WindowID, ActionID: d.ActionID, Params: params,
				Title: desc.Title, Kind: desc.Kind})
		case "tool_result":
			if i, ok := at[d.CallID]; ok {
				a := &t.Actions[i]
				a.Status, a.Output, a.ExitCode = d.Status, d.Output, d.ExitCode
			}
		case "steer":
			t.Steers = append(t.Steers, d.Text)
		case "result":
			if !d.IsError {
				t.Answer = d.Result
			}
		}
	}
	return turns
}
