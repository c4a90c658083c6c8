package hooks

import "encoding/json"

// Tool is an action as a hook sees it: Claude Code's tool name and input
// where one fits (Bash, Read, Edit, Write, WebFetch, WebSearch,
// mcp__SERVER__TOOL),
// else APP.ACTION with the action's parameters; and aci's own call.
type Tool struct {
	Name  string
	Input map[string]any
	Call  map[string]any // aci_call: window, action, params
}

// NewTool is a call as hooks see it: name and input as the call's
// description gives them (windows.Description: Claude Code's tool and
// input, else APP.ACTION and the parameters), and aci's own call.
func NewTool(name string, input map[string]any, windowID, action string, params map[string]json.RawMessage) Tool {
	p := map[string]any{}
	for k, v := range params {
		var x any
		if json.Unmarshal(v, &x) == nil {
			p[k] = x
		}
	}
	if input == nil {
		input = p
	}
	return Tool{Name: name, Input: input, Call: map[string]any{"window": windowID, "action": action, "params": p}}
}

// Response is a finished call as PostToolUse's tool_response: its status
// and text, with Claude Code's fields where they fit.
func Response(t Tool, status, text, output string) map[string]any {
	r := map[string]any{"status": status, "text": text, "success": status == "ok"}
	switch t.Name {
	case "Bash":
		r["stdout"], r["stderr"], r["interrupted"] = output, "", false
	case "Edit", "Write":
		r["filePath"] = t.Input["file_path"]
	}
	if output != "" {
		r["output"] = output
	}
	return r
}
