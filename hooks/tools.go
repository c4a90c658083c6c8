package hooks

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// Tool is an action as a hook sees it: Claude Code's tool name and input
// where one fits (Bash, Read, Edit, Write, WebFetch, WebSearch,
// mcp__SERVER__TOOL),
// else APP.ACTION with the action's parameters; and aci's own call.
type Tool struct {
	Name  string
	Input map[string]any
	Call  map[string]any // aci_call: window, action, params
}

// Describe names a call of action on window (its app, its title) for the
// hooks; cwd makes a file window's path absolute.
func Describe(windowID, action, title, cwd string, params map[string]json.RawMessage) Tool {
	app := windowID
	if i := strings.LastIndexByte(windowID, '_'); i > 0 {
		app = windowID[:i]
	}
	p := map[string]any{}
	for k, v := range params {
		var x any
		if json.Unmarshal(v, &x) == nil {
			p[k] = x
		}
	}
	str := func(k string) string { s, _ := p[k].(string); return s }
	abs := func(path string) string {
		if path != "" && !filepath.IsAbs(path) {
			return filepath.Join(cwd, path)
		}
		return path
	}
	t := Tool{Name: app + "." + action, Input: p, Call: map[string]any{"window": windowID, "action": action, "params": p}}
	switch {
	case app == "bash" && (action == "run" || action == "start"):
		t.Name, t.Input = "Bash", map[string]any{"command": str("command")}
		if action == "start" {
			t.Input["run_in_background"] = true
		}
		if n, ok := p["timeout_s"].(float64); ok {
			t.Input["timeout"] = n * 1000
		}
	case app == "file" && action == "edit":
		t.Name, t.Input = "Edit", map[string]any{"file_path": abs(title), "old_string": str("old_text"), "new_string": str("new_text"),
			"replace_all": p["replace_all"] == true}
	case app == "file" && action == "write":
		t.Name, t.Input = "Write", map[string]any{"file_path": abs(title), "content": str("content")}
	case app == "file" && action == "view":
		t.Name, t.Input = "Read", map[string]any{"file_path": abs(title)}
		if n, ok := p["start_line"].(float64); ok {
			t.Input["offset"] = n
		}
	case app == "launcher" && action == "open" && str("app") == "file":
		t.Name, t.Input = "Read", map[string]any{"file_path": abs(str("target"))}
	case app == "launcher" && action == "open" && str("app") == "web_fetch" && str("target") != "":
		t.Name, t.Input = "WebFetch", map[string]any{"url": str("target")}
	case app == "web_fetch" && action == "fetch":
		t.Name, t.Input = "WebFetch", map[string]any{"url": str("url")}
	case app == "launcher" && action == "open" && str("app") == "search" && str("target") != "":
		t.Name, t.Input = "WebSearch", map[string]any{"query": str("target")}
	case app == "search" && action == "search":
		t.Name, t.Input = "WebSearch", map[string]any{"query": str("query")}
	case app == "mcp" && title != "" && action != "close":
		t.Name = "mcp__" + title + "__" + action
	}
	return t
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
