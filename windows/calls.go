package windows

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aci-dev/aci/protocol"
)

// Call is one call as the table of calls reads it: its window (id, app,
// title), its action and parameters, and what the window knows of it.
// Front ends that hold a stored call with no description make one with
// DescribeCall from what they have (the app its window id names).
type Call struct {
	WindowID, App, Title, Action string
	Params                       map[string]json.RawMessage
	// Workdir makes a target absolute ("" leaves a relative one as written).
	Workdir string
	Path    string // the window's file, absolute (file and image windows)
	Link    string // the address of the result a search window's open opens
}

func (c Call) str(k string) string { return paramString(c.Params, k) }
func (c Call) num(k string) int    { return paramInt(c.Params, k) }

// target is the launcher's target; file is the file a call touches.
func (c Call) target() string { return c.str("target") }

func (c Call) abs(p string) string {
	if c.Workdir == "" || p == "" {
		return p
	}
	return absPath(c.Workdir, p)
}

func (c Call) file() string {
	if c.Path != "" {
		return c.Path
	}
	return c.abs(c.Title)
}

// callRow is one row of the table: what a call of an app's action does,
// in every vocabulary a front end names it with.
type callRow struct {
	kind  string                      // ACP's tool kind (protocol/kinds.go)
	title func(c Call) string         // the words a person reads
	paths func(c Call) []string       // the files it touches
	tool  string                      // Claude Code's tool name; "" none
	input func(c Call) map[string]any // Claude Code's tool_input; nil: not that tool
}

// targetFile is the file a launcher's open touches, when it can be made
// absolute.
func targetFile(c Call) []string {
	if p := c.abs(c.target()); filepath.IsAbs(p) {
		return []string{p}
	}
	return nil
}
func windowFile(c Call) []string { return []string{c.file()} }

// calls is the one table of calls, keyed APP.ACTION; the launcher's open
// by the app it opens (launcher.open/APP). A row "APP.*" covers an app's
// every action (an MCP server's tools).
var calls = map[string]callRow{
	"launcher.open/file": {kind: protocol.KindRead, paths: targetFile, tool: protocol.ToolRead,
		title: func(c Call) string { return "open " + c.target() },
		input: func(c Call) map[string]any { return map[string]any{"file_path": c.abs(c.target())} }},
	"launcher.open/image": {kind: protocol.KindRead, paths: targetFile, tool: protocol.ToolRead,
		title: func(c Call) string { return "look at " + c.target() },
		input: func(c Call) map[string]any { return map[string]any{"file_path": c.abs(c.target())} }},
	"launcher.open/bash": {kind: protocol.KindExecute, title: func(c Call) string {
		if c.target() != "" {
			return "open a shell in " + c.target()
		}
		return "open a shell"
	}},
	"launcher.open/web_fetch": {kind: protocol.KindFetch, tool: protocol.ToolWebFetch,
		title: func(c Call) string { return "fetch " + c.target() },
		input: func(c Call) map[string]any { return nonEmpty("url", c.target()) }},
	"launcher.open/search": {kind: protocol.KindFetch, tool: protocol.ToolWebSearch,
		title: func(c Call) string {
			if c.target() != "" {
				return "search the web for " + c.target()
			}
			return "open a web search"
		},
		input: func(c Call) map[string]any { return nonEmpty("query", c.target()) }},
	"launcher.open/agent": {kind: protocol.KindOther, title: func(c Call) string { return "start an agent: " + firstLine(c.target()) }},
	"launcher.open/skill": {kind: protocol.KindRead, title: func(c Call) string { return "use the skill " + c.target() }},
	"launcher.open/mcp":   {kind: protocol.KindOther, title: func(c Call) string { return "start the MCP server " + c.target() }},
	"launcher.open": {kind: protocol.KindOther, title: func(c Call) string {
		return strings.TrimSpace("open " + c.str("app") + " " + c.target())
	}},

	"file.view": {kind: protocol.KindRead, paths: windowFile, tool: protocol.ToolRead,
		title: func(c Call) string {
			if n := c.num("start_line"); n > 1 {
				return fmt.Sprintf("read %s from line %d", c.Title, n)
			}
			return "read " + c.Title
		},
		input: func(c Call) map[string]any {
			in := map[string]any{"file_path": c.file()}
			if _, ok := c.Params["start_line"]; ok {
				in["offset"] = float64(c.num("start_line"))
			}
			return in
		}},
	"file.edit": {kind: protocol.KindEdit, paths: windowFile, tool: protocol.ToolEdit,
		title: func(c Call) string { return "edit " + c.Title },
		input: func(c Call) map[string]any {
			var all bool
			json.Unmarshal(c.Params["replace_all"], &all)
			return map[string]any{"file_path": c.file(), "old_string": c.str("old_text"), "new_string": c.str("new_text"), "replace_all": all}
		}},
	"file.write": {kind: protocol.KindEdit, paths: windowFile, tool: protocol.ToolWrite,
		title: func(c Call) string { return "write " + c.Title },
		input: func(c Call) map[string]any { return map[string]any{"file_path": c.file(), "content": c.str("content")} }},

	"bash.run": {kind: protocol.KindExecute, tool: protocol.ToolBash,
		title: func(c Call) string { return "run " + firstLine(c.str("command")) },
		input: func(c Call) map[string]any { return bashInput(c, false) }},
	"bash.start": {kind: protocol.KindExecute, tool: protocol.ToolBash,
		title: func(c Call) string { return "start " + firstLine(c.str("command")) + " in the background" },
		input: func(c Call) map[string]any { return bashInput(c, true) }},
	"bash.kill": {kind: protocol.KindExecute, title: func(c Call) string { return "stop task " + c.str("task_id") }},
	"bash.close": {kind: protocol.KindOther, title: func(c Call) string {
		return strings.TrimSpace("close the shell in " + c.Title)
	}},

	"web_fetch.fetch": {kind: protocol.KindFetch, tool: protocol.ToolWebFetch,
		title: func(c Call) string { return "fetch " + c.str("url") },
		input: func(c Call) map[string]any { return map[string]any{"url": c.str("url")} }},
	"web_fetch.page": {kind: protocol.KindFetch, title: func(c Call) string { return fmt.Sprintf("page %d of %s", c.num("n"), c.Title) }},

	"search.search": {kind: protocol.KindFetch, tool: protocol.ToolWebSearch,
		title: func(c Call) string { return "search the web for " + c.str("query") },
		input: func(c Call) map[string]any { return map[string]any{"query": c.str("query")} }},
	"search.more": {kind: protocol.KindFetch, title: func(c Call) string { return "more results for " + c.Title }},
	"search.open": {kind: protocol.KindFetch, title: func(c Call) string {
		if c.Link != "" {
			return "fetch " + c.Link
		}
		return fmt.Sprintf("open result %d", c.num("n"))
	}},

	"agent.wait": {kind: protocol.KindOther, title: func(c Call) string { return strings.TrimSpace("wait for the agent on " + c.Title) }},
	"agent.tell": {kind: protocol.KindOther, title: func(c Call) string { return "tell the agent: " + firstLine(c.str("text")) }},

	"mcp.close": {kind: protocol.KindOther, title: func(c Call) string { return strings.TrimSpace("close " + c.Title) }},
	"mcp.*": {kind: protocol.KindOther, tool: protocol.ToolMCP,
		title: func(c Call) string { return c.Title + ": " + c.Action },
		input: func(c Call) map[string]any {
			if c.Title == "" {
				return nil // no server name to say it with
			}
			return plainParams(c.Params)
		}},
}

// nonEmpty is {key: v}, nil when v is empty (a launcher's open with no
// target is no Claude Code tool call).
func nonEmpty(key, v string) map[string]any {
	if v == "" {
		return nil
	}
	return map[string]any{key: v}
}

// bashInput is a command as Claude Code's Bash takes it.
func bashInput(c Call, background bool) map[string]any {
	in := map[string]any{"command": c.str("command")}
	if background {
		in["run_in_background"] = true
	}
	if _, ok := c.Params["timeout_s"]; ok {
		in["timeout"] = float64(c.num("timeout_s")) * 1000
	}
	return in
}

// rowOf is c's row of the table; ok is false for a call it has none for.
func rowOf(c Call) (callRow, bool) {
	key := c.App + "." + c.Action
	if key == "launcher.open" {
		if r, ok := calls[key+"/"+c.str("app")]; ok {
			return r, true
		}
	}
	if r, ok := calls[key]; ok {
		return r, true
	}
	r, ok := calls[c.App+".*"]
	return r, ok
}

// DescribeCall is c described by the table of calls: its words, kind and
// files for people, its Claude Code tool name and input for hooks. A call
// the table has no row for is "ACTION TITLE", kind other, APP.ACTION with
// its parameters.
func DescribeCall(c Call) Description {
	if c.App == "" {
		c.App = AppOf(c.WindowID)
	}
	d := Description{Kind: protocol.KindOther, Tool: c.App + "." + c.Action, Input: plainParams(c.Params)}
	if r, ok := rowOf(c); ok {
		d.Kind = r.kind
		if r.title != nil {
			d.Title = strings.TrimSpace(r.title(c))
		}
		if r.paths != nil {
			d.Paths = r.paths(c)
		}
		if r.input != nil {
			if in := r.input(c); in != nil {
				d.Tool, d.Input = r.tool, in
				if r.tool == protocol.ToolMCP {
					d.Tool = protocol.ToolMCP + c.Title + "__" + c.Action
				}
			}
		}
	}
	if strings.TrimSpace(d.Title) == "" {
		d.Title = strings.TrimSpace(c.Action + " " + c.Title)
	}
	return d
}
