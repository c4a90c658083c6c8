package windows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Description is a call as a person reads it: what it does, in words,
// with no internal ids or markup; and as hooks see it, under Claude
// Code's tool name. Every front end (the REPL, pipe, ACP, the page,
// hooks) reads this one description; the table in calls.go makes it.
type Description struct {
	Title string // "edit calc.py", "run go test ./..."
	// Kind is what the call does, one of ACP's tool kinds: read, edit,
	// execute, fetch, other (protocol/kinds.go).
	Kind string
	// Paths are the files the call touches, absolute.
	Paths []string
	// Tool is Claude Code's name for the call where one fits (Bash,
	// Read, Edit, Write, WebFetch, WebSearch, mcp__SERVER__TOOL), else
	// APP.ACTION: what a hook's matcher is tried on.
	Tool string
	// Input is the call's input as Claude Code's tool takes it (command,
	// file_path, old_string, …), else its parameters as written. It holds
	// the call's parameters unredacted: for hooks, never for a wire.
	Input map[string]any
}

// Describe is a call described for a person, by the table of calls
// (calls.go), with what its window knows (its file, its results). A call
// of a window that is gone (closed by the call itself) is described by
// the app its id names.
func (m *Manager) Describe(windowID, actionID string, params map[string]json.RawMessage) Description {
	c := Call{WindowID: windowID, Action: actionID, Params: params, Workdir: m.env.Workdir, App: AppOf(windowID)}
	if w := m.find(windowID); w != nil {
		c.App, c.Title = w.App(), w.Title()
		if k, ok := w.(callKnower); ok {
			k.know(&c)
		}
	}
	return DescribeCall(c)
}

// callKnower windows add what only they know to a call's description: a
// file window its absolute path, a search window its results' addresses.
type callKnower interface{ know(c *Call) }

func (w *fileWindow) know(c *Call)  { c.Path = w.path }
func (w *imageWindow) know(c *Call) { c.Path = w.path }

func (w *searchWindow) know(c *Call) {
	if c.Action != "open" {
		return
	}
	n := c.num("n")
	w.mu.Lock()
	defer w.mu.Unlock()
	if n >= 1 && n <= len(w.results) {
		c.Link = w.results[n-1].URL
	}
}

// AppOf is the app a window id names ("file_3" → "file").
func AppOf(windowID string) string {
	if i := strings.LastIndexByte(windowID, '_'); i > 0 {
		return windowID[:i]
	}
	return windowID
}

// paramString is a call's string parameter, "" when absent or not one.
func paramString(p map[string]json.RawMessage, k string) string {
	var s string
	json.Unmarshal(p[k], &s)
	return s
}

// paramInt is a call's whole-number parameter, 0 when absent.
func paramInt(p map[string]json.RawMessage, k string) int {
	var n int
	json.Unmarshal(p[k], &n)
	return n
}

// firstLine is s up to its first line break, marked when cut.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// absPath is target as a file window would open it, made absolute.
func absPath(workdir, target string) string {
	p := target
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(workdir, p)
	}
	return filepath.Clean(p)
}

// plainParams is a call's parameters as JSON values (hooks' tool_input
// for a call with no Claude Code tool).
func plainParams(p map[string]json.RawMessage) map[string]any {
	out := map[string]any{}
	for k, v := range p {
		var x any
		if json.Unmarshal(v, &x) == nil {
			out[k] = x
		}
	}
	return out
}
