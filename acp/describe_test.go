package acp

import (
	"encoding/json"
	"testing"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// An agent's open is followed by the window id its result carries and by
// the progress its window events carry, never by the words of either: a
// result text that says nothing of the window, and a content that starts
// with "answered" while the child still runs, change nothing.
func TestAgentCallFollowedByData(t *testing.T) {
	var sent []toolCall
	u := newUpdates(func(v any) {
		if tc, ok := v.(toolCall); ok {
			sent = append(sent, tc)
		}
	}, t.TempDir(), noWindow, false)
	open := protocol.Call{ID: "c1", WindowID: "launcher", ActionID: "open", Params: map[string]json.RawMessage{"app": json.RawMessage(`"agent"`)}}
	u.event(session.ToolResult{Call: open, Result: protocol.Result{Status: protocol.StatusStarted, Text: "a helper began"},
		Detail: windows.Result{Status: protocol.StatusStarted, Opened: "agent_1"}})
	if len(sent) != 1 || sent[0].Status != statusInProgress {
		t.Fatalf("the open's result: %+v", sent)
	}
	u.event(session.Window{ID: "agent_1", App: "agent", Content: "answered? not yet", Progress: windows.AgentRunning})
	if last := sent[len(sent)-1]; last.ToolCallID != "c1" || last.Status != statusInProgress {
		t.Errorf("a running child's update: %+v", last)
	}
	u.event(session.Window{ID: "agent_1", App: "agent", Content: "all done", Progress: windows.AgentFailed})
	if last := sent[len(sent)-1]; last.ToolCallID != "c1" || last.Status != statusFailed {
		t.Errorf("a failed child's update: %+v", last)
	}
	// Ended: later window events are no update of the call.
	n := len(sent)
	u.event(session.Window{ID: "agent_1", App: "agent", Content: "x", Progress: windows.AgentAnswered})
	if len(sent) != n {
		t.Errorf("an update after the end: %+v", sent[n:])
	}
	// A result whose text names a window it did not open opens nothing.
	u.event(session.ToolResult{Call: protocol.Call{ID: "c2", WindowID: "launcher", ActionID: "open"},
		Result: protocol.Result{Status: protocol.StatusStarted, Text: "opened agent_2: working"}})
	if last := sent[len(sent)-1]; last.Status == statusInProgress {
		t.Errorf("followed by its text: %+v", last)
	}
}

// ACP's tool call is the call's one description; a stored call kept
// without one is described by the same table.
func TestToolCallFromDescription(t *testing.T) {
	u := newUpdates(func(any) {}, "/w", noWindow, false)
	p := map[string]json.RawMessage{"app": json.RawMessage(`"file"`), "target": json.RawMessage(`"a.go"`)}
	c := protocol.Call{ID: "c1", WindowID: "launcher", ActionID: "open", Params: p}
	live := u.described(session.ToolCall{Call: c, Desc: windows.Description{Title: "open a.go", Kind: "read", Paths: []string{"/w/a.go"}}})
	stored := u.described(session.ToolCall{Call: c})
	want := windows.DescribeCall(windows.Call{WindowID: "launcher", Action: "open", Params: p, Workdir: "/w"})
	for _, tc := range []toolCall{live, stored} {
		if tc.Title != want.Title || tc.Kind != want.Kind || len(tc.Locations) != 1 || tc.Locations[0].Path != "/w/a.go" {
			t.Errorf("%+v, want %+v", tc, want)
		}
	}
}

// noWindow is a session with no window open.
func noWindow(string) (session.WindowInfo, bool) { return session.WindowInfo{}, false }
