package fakeai

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Call is one tool call in aci's text protocol (shared/docs/protocol.md §4).
type Call struct {
	Window string         `json:"window_id"`
	Action string         `json:"action_id"`
	Params map[string]any `json:"params"`
}

// ToolCall renders calls as a <tool_call> block for a scripted model reply:
//
//	<tool_call>
//	{"calls":[{"window_id":"file_1","action_id":"edit","params":{...}}]}
//	</tool_call>
func ToolCall(calls ...Call) string {
	list := make([]Call, len(calls))
	for i, c := range calls {
		if c.Params == nil {
			c.Params = map[string]any{} // a model writes {}, not null
		}
		list[i] = c
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // a model writes <, > and & raw
	if err := enc.Encode(map[string]any{"calls": list}); err != nil {
		panic("fakeai: ToolCall: " + err.Error()) // only for unencodable params: a test bug
	}
	return "<tool_call>\n" + strings.TrimSuffix(buf.String(), "\n") + "\n</tool_call>"
}
