package acp

import (
	"encoding/json"
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
	window  func(id string) (session.WindowInfo, bool) // an open window as it is now
	notices bool                                       // the client shows notice updates
	secrets *secrets.Redactor                          // kept out of window contents and titles

	mu      sync.Mutex
	shown   map[string]string // window id → the content last sent
	current string            // the call running now, for a permission request
	agents  map[string]string // agent window id → the call that opened it, while it runs (agents.go)
}

func newUpdates(send func(any), cwd string, window func(id string) (session.WindowInfo, bool), notices bool) *updates {
	return &updates{send: send, cwd: cwd, window: window, notices: notices, shown: map[string]string{}}
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
// window described it with (the same words every front end shows). A
// stored call an older aci kept no description of is described by the
// same table, from the app its window id names.
func (u *updates) described(e session.ToolCall) toolCall {
	if e.Title == "" {
		e.Title = u.windowTitle(e.Call.WindowID)
	}
	d := e.Described(u.cwd)
	tc := toolCall{ToolCallID: e.Call.ID, Kind: d.Kind, Title: d.Title}
	if raw, err := json.Marshal(e.Call.Params); err == nil && e.Call.Params != nil {
		tc.RawInput = raw
	}
	for _, p := range d.Paths {
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
		if id = ev.Detail.Opened; id == "" {
			return ""
		}
	}
	action := ev.Call.ActionID
	switch windows.AppOf(id) {
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
	w, ok := u.window(id)
	if !ok {
		return ""
	}
	// A window's content is no event: it is redacted here.
	content := u.redact(w.Content)
	if content == u.shown[id] {
		return ""
	}
	u.shown[id] = content
	return fence(content)
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

// windowTitle is an open window's title, "" when none is open by id.
func (u *updates) windowTitle(id string) string {
	if w, ok := u.window(id); ok {
		return u.redact(w.Title)
	}
	return ""
}
