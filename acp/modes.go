package acp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// The permission modes as ACP session modes (docs/protocol.md section 10):
// session/new and session/load say them, session/set_mode switches, and a
// current_mode_update follows every change, whoever made it. yes is not
// offered: the editor is there to ask.

type sessionMode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type sessionModeState struct {
	CurrentModeID  string        `json:"currentModeId"`
	AvailableModes []sessionMode `json:"availableModes"`
}

type modeUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	CurrentModeID string `json:"currentModeId"`
}

type setModeParams struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

// editorModes are the modes offered to an editor, in Shift-Tab's order.
var editorModes = []windows.PermMode{windows.ModeDefault, windows.ModeAsk, windows.ModePlan}

func modeState(m windows.PermMode) *sessionModeState {
	st := &sessionModeState{CurrentModeID: string(m)}
	names := map[windows.PermMode]string{windows.ModeDefault: "Default", windows.ModeAsk: "Ask", windows.ModePlan: "Plan"}
	for _, em := range editorModes {
		st.AvailableModes = append(st.AvailableModes, sessionMode{ID: string(em), Name: names[em], Description: em.Describe()})
	}
	return st
}

// setMode is session/set_mode.
func (srv *server) setMode(p setModeParams) (any, error) {
	s := srv.session(p.SessionID)
	if s == nil {
		return nil, invalidParams("invalid params: no session %q", p.SessionID)
	}
	m, err := windows.ParseMode(p.ModeID)
	if err != nil || m == windows.ModeYes {
		return nil, invalidParams("invalid params: unknown mode %q (modes: default, ask, plan)", p.ModeID)
	}
	s.sess().SetMode(m)
	return struct{}{}, nil
}

// modeEvent tells the editor the session's mode changed.
func (u *updates) modeEvent(e session.ModeEvent) {
	if !e.PlanReady {
		u.send(modeUpdate{SessionUpdate: "current_mode_update", CurrentModeID: string(e.Mode)})
	}
}

// offerPlan asks the editor, after a prompt's turn that ended in plan
// mode with a plan, whether to accept it; yes switches to default and
// runs the turn that carries it out, within the same prompt.
func (a *acpSession) offerPlan(ctx context.Context, c *conn) (bool, session.Result, error) {
	if !a.sess().PlanReady() {
		return false, session.Result{}, nil
	}
	raw, _ := json.Marshal(map[string]string{"kind": "plan"})
	params := permissionParams{SessionID: a.id, ToolCall: toolCall{ToolCallID: "plan_" + randomHex(), Title: "Accept the plan?",
		Kind: "switch_mode", Status: statusPending, RawInput: raw,
		Content: []toolContent{textContent("Switches to default mode and carries out the plan.")}},
		Options: []permissionOption{
			{OptionID: optAllowOnce, Name: "Yes, carry it out", Kind: optAllowOnce},
			{OptionID: optRejectOnce, Name: "No, keep planning", Kind: optRejectOnce},
		}}
	var res permissionResult
	if err := c.call(ctx, "session/request_permission", params, &res, true); err != nil {
		return false, session.Result{}, nil // no answer: the plan stays, as does plan mode
	}
	if res.Outcome.Outcome != "selected" || res.Outcome.OptionID != optAllowOnce {
		return false, session.Result{}, nil
	}
	q, err := a.sess().AcceptPlan()
	if err != nil {
		return false, session.Result{}, fmt.Errorf("accept the plan: %w", err)
	}
	r, err := a.sess().Ask(ctx, q)
	return true, r, err
}
