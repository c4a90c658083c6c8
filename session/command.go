package session

import (
	"context"
	"encoding/json"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// UserCallID is the call id of a command the person ran themselves.
const UserCallID = "user"

// Command runs a command the person typed (the REPL's !cmd) in the
// session's first bash window, opened if there is none, through the
// windows so the guard asks as it would for the model. It goes out as a
// call with id UserCallID: its tool_call, its output as it comes, its
// tool_result. It returns what the command did and the window it ran in;
// between turns only (ErrBusy otherwise).
func (s *Session) Command(ctx context.Context, command string) (windows.Result, string, error) {
	if !s.run.TryLock() {
		return windows.Result{}, "", ErrBusy
	}
	defer s.run.Unlock()
	id := ""
	for _, w := range s.wm.Windows() {
		if w.App() == "bash" {
			id = w.ID()
			break
		}
	}
	if id == "" {
		w, res := s.wm.Open(ctx, "bash", "")
		if w == nil {
			return res, "", nil
		}
		id = w.ID()
		s.snapshotWindows(true)
	}
	raw, _ := json.Marshal(map[string]string{"command": command})
	var params map[string]json.RawMessage
	json.Unmarshal(raw, &params)
	call := protocol.Call{ID: UserCallID, WindowID: id, ActionID: "run", Params: params}
	s.mu.Lock()
	desc := s.describe(call)
	s.call = &callInfo{id: call.ID, windowID: id, actionID: "run", params: params, title: desc.Title}
	s.mu.Unlock()
	s.setState(StateExecuting)
	s.publish(ToolCall{Call: call, Title: s.f.cfg.Agent.Redact(s.titleOf(id)), Desc: desc})
	res := s.wm.Execute(ctx, id, "run", params)
	redact := s.f.cfg.Agent.Redact
	res.Text, res.Output, res.Diff = redact(res.Text), redact(res.Output), redact(res.Diff)
	s.live.endCall(s, call.ID)
	s.mu.Lock()
	s.call = nil
	s.mu.Unlock()
	s.publish(ToolResult{Call: call, Result: protocol.Result{CallID: call.ID, WindowID: id, ActionID: "run", Status: res.Status, Text: res.Text}, Detail: res})
	s.snapshotWindows(true)
	s.setState(StateIdle)
	s.flushEvents()
	return res, id, nil
}

func (s *Session) titleOf(id string) string {
	for _, w := range s.wm.Windows() {
		if w.ID() == id {
			return w.Title()
		}
	}
	return ""
}
