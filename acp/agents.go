package acp

import (
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// An agent window's open is a tool call that stays in progress while the
// child works: each window event of the agent updates the call's content
// with the window (its actions line, then its answer), and the child's
// end completes it (or fails it).

// agentOpened keeps the call that opened an agent in progress, and
// remembers it for the window's updates. Call with u.mu held.
func (u *updates) agentOpened(ev session.ToolResult, tc *toolCall) {
	// A window opened to work on in the background (started, not done):
	// its window events carry how it goes (Progress).
	id := ev.Detail.Opened
	if ev.Result.Status != protocol.StatusStarted || id == "" {
		return
	}
	if u.agents == nil {
		u.agents = map[string]string{}
	}
	u.agents[id] = ev.Call.ID
	tc.Status = statusInProgress
}

// agentWindow sends an agent window's content as an update of the call
// that opened it. Call with u.mu held.
func (u *updates) agentWindow(w session.Window) {
	callID, ok := u.agents[w.ID]
	if !ok || w.Progress == "" && !w.Closed {
		return
	}
	status := statusInProgress
	switch {
	case w.Closed, w.Progress == windows.AgentAnswered:
		status = statusCompleted
	case w.Progress == windows.AgentFailed:
		status = statusFailed
	}
	tc := toolCall{SessionUpdate: "tool_call_update", ToolCallID: callID, Status: status}
	if !w.Closed {
		tc.Content = []toolContent{textContent(fence(w.Content))}
	}
	if status != statusInProgress {
		delete(u.agents, w.ID)
	}
	u.send(tc)
}
