package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/secrets"
	"github.com/aci-dev/aci/windows"
)

// updates turns one session's events into session/update notifications:
// the model's words, its reasoning, and each window action as a tool call
// with its updates — a running command's output as it comes.
type updates struct {
	send    func(update any)
	cwd     string
	windows func() []windows.Window // the session's open windows
	notices bool                    // the client shows notice updates
	secrets *secrets.Redactor       // kept out of window contents and titles

	mu      sync.Mutex
	shown   map[string]string // window id → the content last sent
	current string            // the call running now, for a permission request
	agents  map[string]string // agent window id → the call that opened it, while it runs (agents.go)
}

func newUpdates(send func(any), cwd string, wins func() []windows.Window, notices bool) *updates {
	return &updates{send: send, cwd: cwd, windows: wins, notices: notices, shown: map[string]string{}}
}

// redact removes u's secrets from s: for what is not an event (a
// window's content, a stored conversation), which the session did not
// redact at its source.
func (u *updates) redact(s string) string { return u.secrets.Redact(s) }

// event takes one of the session's events, in order.
func (u *updates) event(ev session.Event) {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch e := ev.(type) {
	case session.Text:
		switch {
		case e.Text == "":
		case e.Reasoning:
			u.send(chunk{SessionUpdate: "agent_thought_chunk", Content: textBlock(e.Text)})
		default:
			u.message(e.Text)
		}
	case session.ToolCall:
		u.current = e.Call.ID
		tc := u.described(e)
		tc.SessionUpdate, tc.Status = "tool_call", statusPending
		u.send(tc)
		u.send(toolCall{SessionUpdate: "tool_call_update", ToolCallID: e.Call.ID, Status: statusInProgress})
	case session.Output:
		if e.CallID == "" {
			return // a background task's: its window shows it
		}
		// Each update carries the piece that came since the last, not the
		// output so far: sending it costs what was printed, once. An
		// editor shows the latest piece while the command runs (a live
		// tail); the last update has the output as the model got it.
		u.send(toolCall{SessionUpdate: "tool_call_update", ToolCallID: e.CallID, Status: statusInProgress,
			Content: []toolContent{textContent(fence(e.Text))}})
	case session.ToolResult:
		u.current = ""
		tc := u.result(e)
		u.agentOpened(e, &tc)
		u.send(tc)
	case session.ModeEvent:
		u.modeEvent(e)
	case session.Window:
		u.agentWindow(e)
	case session.Result:
		if e.Outcome == session.LimitReached {
			// The stop reason alone cannot say which budget, nor what was spent.
			u.notice("warning", e.Error)
		}
	case session.Notice:
		if e.Kind == "compression" {
			u.notice("info", "the earlier conversation was summarised to fit the model's context")
		} else {
			u.notice("info", e.Text)
		}
	}
}

func (u *updates) message(s string) {
	u.send(chunk{SessionUpdate: "agent_message_chunk", Content: textBlock(s)})
}

func (u *updates) notice(severity, text string) {
	if u.notices && text != "" {
		u.send(notice{SessionUpdate: "notice", Severity: severity, Title: text})
	}
}

// runningCall is the id of the call running now ("" between calls).
func (u *updates) runningCall() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.current
}

// described is a call as a tool call: the title, kind and files its
// window described it with (the same words every front end shows).
func (u *updates) described(e session.ToolCall) toolCall {
	if e.Desc.Title == "" {
		return u.describe(e.Call, e.Title)
	}
	tc := toolCall{ToolCallID: e.Call.ID, Kind: e.Desc.Kind, Title: e.Desc.Title}
	if raw, err := json.Marshal(e.Call.Params); err == nil && e.Call.Params != nil {
		tc.RawInput = raw
	}
	for _, p := range e.Desc.Paths {
		loc := location{Path: p}
		if e.Call.ActionID == "view" {
			var n int
			json.Unmarshal(e.Call.Params["start_line"], &n)
			loc.Line = max(n, 1)
		}
		tc.Locations = append(tc.Locations, loc)
	}
	return tc
}

// describe is a stored call (a loaded session's replay, which keeps no
// description) as a tool call: its kind, a title a person reads, the
// files it touches. title is the window's title when known.
func (u *updates) describe(c protocol.Call, title string) toolCall {
	tc := toolCall{ToolCallID: c.ID, Kind: "other"}
	if raw, err := json.Marshal(c.Params); err == nil && c.Params != nil {
		tc.RawInput = raw
	}
	str := func(k string) string {
		var s string
		json.Unmarshal(c.Params[k], &s)
		return s
	}
	num := func(k string) int {
		var n int
		json.Unmarshal(c.Params[k], &n)
		return n
	}
	if title == "" {
		title = u.windowTitle(c.WindowID)
	}
	app := appOf(c.WindowID)
	switch {
	case c.Err != "":
		tc.Title = fmt.Sprintf("%s.%s (malformed call)", c.WindowID, c.ActionID)
	case app == "launcher" && c.ActionID == "open":
		target := str("target")
		switch str("app") {
		case "file":
			tc.Kind, tc.Title = "read", "Open "+target
			tc.Locations = []location{{Path: u.abs(target)}}
		case "bash":
			tc.Kind, tc.Title = "execute", "Open a shell"
			if target != "" {
				tc.Title += " in " + target
			}
		case "web_fetch":
			tc.Kind, tc.Title = "fetch", "Fetch "+target
		case "search":
			tc.Kind, tc.Title = "fetch", "Search the web for "+target
		default:
			tc.Title = strings.TrimSpace("Open " + str("app") + " " + target)
		}
	case c.ActionID == "close":
		tc.Title = "Close " + title
	case app == "file":
		loc := location{Path: u.abs(title)}
		switch c.ActionID {
		case "view":
			tc.Kind = "read"
			start := max(num("start_line"), 1)
			loc.Line = start
			tc.Title = fmt.Sprintf("Read %s from line %d", title, start)
		case "edit":
			tc.Kind, tc.Title = "edit", "Edit "+title
		case "write":
			tc.Kind, tc.Title = "edit", "Write "+title
		default:
			tc.Title = c.ActionID + " " + title
		}
		tc.Locations = []location{loc}
	case app == "bash":
		tc.Kind = "execute"
		switch c.ActionID {
		case "run":
			tc.Title = str("command")
		case "start":
			tc.Title = str("command") + " (in the background)"
		case "kill":
			tc.Title = "Stop task " + str("task_id")
		default:
			tc.Title = c.ActionID + " in " + c.WindowID
		}
	case app == "web_fetch":
		tc.Kind = "fetch"
		switch c.ActionID {
		case "fetch":
			tc.Title = "Fetch " + str("url")
		case "page":
			tc.Title = fmt.Sprintf("Page %d of %s", num("n"), title)
		default:
			tc.Title = c.ActionID + " " + title
		}
	case app == "search":
		tc.Kind = "fetch"
		switch c.ActionID {
		case "search":
			tc.Title = "Search the web for " + str("query")
		case "more":
			tc.Title = "More results for " + title
		case "open":
			tc.Title = fmt.Sprintf("Open result %d of %s", num("n"), title)
		default:
			tc.Title = c.ActionID + " " + title
		}
	case app == "mcp":
		tc.Title = fmt.Sprintf("%s: %s", title, c.ActionID)
	default:
		tc.Title = fmt.Sprintf("%s.%s", c.WindowID, c.ActionID)
	}
	if strings.TrimSpace(tc.Title) == "" {
		tc.Title = fmt.Sprintf("%s.%s", c.WindowID, c.ActionID)
	}
	return tc
}

// result is the tool_call_update that ends a call: its status and what
// it did — a diff for a file change, the output of a command, the new
// content of a window the editor has no other way to show.
func (u *updates) result(ev session.ToolResult) toolCall {
	d := ev.Detail
	tc := toolCall{SessionUpdate: "tool_call_update", ToolCallID: ev.Call.ID, Status: statusCompleted,
		RawOutput: map[string]string{"status": ev.Result.Status, "text": ev.Result.Text}}
	if (ev.Result.Status != protocol.StatusOK && ev.Result.Status != protocol.StatusStarted) || d.Failed {
		tc.Status = statusFailed
	}
	if f := d.File; f != nil {
		diff := toolContent{Type: "diff", Path: f.Path, NewText: &f.After}
		if !f.Created {
			diff.OldText = &f.Before
		}
		tc.Content = append(tc.Content, diff)
	}
	if d.Output != "" {
		tc.Content = append(tc.Content, textContent(fence(d.Output)))
	}
	if w := u.changedWindow(ev); w != "" {
		tc.Content = append(tc.Content, textContent(w))
	}
	if len(tc.Content) == 0 || tc.Status == statusFailed {
		tc.Content = append([]toolContent{textContent(ev.Result.Text)}, tc.Content...)
	}
	return tc
}

// changedWindow is the content of the window the call acted on (or
// opened), when the editor cannot show it otherwise and it changed since
// last sent: a web page, an MCP server's tools or resource, a shell's
// background tasks.
func (u *updates) changedWindow(ev session.ToolResult) string {
	id := ev.Call.WindowID
	if id == "launcher" {
		rest, ok := strings.CutPrefix(ev.Result.Text, "opened ")
		if !ok {
			return ""
		}
		id, _, _ = strings.Cut(rest, " ")
		id = strings.TrimSuffix(id, ":")
	}
	action := ev.Call.ActionID
	switch appOf(id) {
	case "file", "launcher":
		return "" // files show in the editor
	case "bash":
		if action == "run" || ev.Detail.Output != "" {
			return "" // a command's output is its own content
		}
	case "mcp":
		if ev.Call.WindowID != "launcher" && action != "read" {
			return "" // a tool's result is its text
		}
	}
	for _, w := range u.windows() {
		if w.ID() != id {
			continue
		}
		// A window's content is no event: it is redacted here.
		content := u.redact(w.View().Content)
		if content == u.shown[id] {
			return ""
		}
		u.shown[id] = content
		return fence(content)
	}
	return ""
}

func textContent(s string) toolContent {
	b := textBlock(s)
	return toolContent{Type: "content", Content: &b}
}

// fence puts text in a Markdown code block, with a fence longer than any
// run of backticks inside it.
func fence(s string) string {
	n, run := 3, 0
	for _, r := range s {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + "\n" + strings.TrimSuffix(s, "\n") + "\n" + f
}

// appOf is the app of a window id ("file_3" → "file").
func appOf(id string) string {
	if i := strings.LastIndexByte(id, '_'); i > 0 {
		return id[:i]
	}
	return id
}

func (u *updates) windowTitle(id string) string {
	for _, w := range u.windows() {
		if w.ID() == id {
			return u.redact(w.Title())
		}
	}
	return id
}

// abs is a path as given to a window, made absolute in the session's cwd.
func (u *updates) abs(p string) string {
	if strings.HasPrefix(p, "~/") {
		return p
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(u.cwd, p)
	}
	return filepath.Clean(p)
}
