package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// Permission options, as offered to the editor.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
	// optAllowProject keeps a rule for this project (docs/protocol.md §10);
	// offered where a rule can say the action, with the kind allow_always.
	optAllowProject = "allow_always_project"
)

// approver asks the editor (session/request_permission) every question
// aci would ask a person. It waits until the answer, the prompt's end
// (cancel) or the timeout, whichever comes first; no answer is a denial.
type approver struct {
	c         *conn
	sessionID string
	timeout   time.Duration
	running   func() string // the call being run, whose tool call the question is about

	mu       sync.Mutex
	rejected map[string]bool // kind + subject the person refused for good
}

func (a *approver) Approve(ctx context.Context, req windows.ApprovalRequest) windows.Decision {
	key := req.Kind + "\x00" + req.Subject
	a.mu.Lock()
	refused := a.rejected[key]
	a.mu.Unlock()
	if refused {
		return windows.Decision{Message: "refused for the rest of the session"}
	}
	opts := []permissionOption{
		{OptionID: optAllowOnce, Name: "Allow", Kind: optAllowOnce},
		{OptionID: optAllowAlways, Name: alwaysName(req), Kind: optAllowAlways},
	}
	if rule, ok := windows.ProjectRule(req, ""); ok {
		opts = append(opts, permissionOption{OptionID: optAllowProject, Name: "Always allow in this project (" + rule + ")", Kind: optAllowAlways})
	}
	opts = append(opts, permissionOption{OptionID: optRejectOnce, Name: "Deny", Kind: optRejectOnce},
		permissionOption{OptionID: optRejectAlways, Name: "Always deny", Kind: optRejectAlways})
	params := permissionParams{SessionID: a.sessionID, ToolCall: a.toolCall(req), Options: opts}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	var res permissionResult
	err := a.c.call(ctx, "session/request_permission", params, &res, true)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return windows.Decision{By: "aci", Message: fmt.Sprintf("no answer within %s", a.timeout)}
	case errors.Is(err, context.Canceled):
		return windows.Decision{By: "aci", Message: "the prompt was cancelled"}
	case err != nil:
		a.c.log.Printf("session/request_permission: %v", err)
		return windows.Decision{By: "aci", Message: "the editor could not ask: " + err.Error()}
	}
	if res.Outcome.Outcome != "selected" {
		return windows.Decision{By: "the editor", Message: "the prompt was cancelled"}
	}
	switch res.Outcome.OptionID {
	case optAllowOnce:
		return windows.Decision{Allow: true}
	case optAllowAlways:
		return windows.Decision{Allow: true, Always: true}
	case optAllowProject:
		return windows.Decision{Allow: true, Always: true, Project: true}
	case optRejectAlways:
		a.mu.Lock()
		a.rejected[key] = true
		a.mu.Unlock()
		return windows.Decision{Message: "refused for the rest of the session"}
	case optRejectOnce:
		return windows.Decision{}
	}
	return windows.Decision{By: "the editor", Message: fmt.Sprintf("it answered with an unknown option %q", res.Outcome.OptionID)}
}

// toolCall is the question as the tool call it is about: the running
// call's id, a title saying what needs the yes, and why.
func (a *approver) toolCall(req windows.ApprovalRequest) toolCall {
	id := a.running()
	if id == "" {
		id = "approval_" + req.WindowID
	}
	text := req.Reason
	if req.Part != "" && req.Part != req.Subject {
		text += " (" + req.Part + ")"
	}
	if req.Diff != "" {
		text += "\n\n" + fence(req.Diff)
	}
	kind := protocol.AskKindOf(req.Kind).Kind
	if req.Kind == protocol.AskFile && strings.HasPrefix(req.Subject, "open ") {
		kind = protocol.KindRead // opening a file reads it
	}
	raw, _ := json.Marshal(map[string]string{"kind": req.Kind, "subject": req.Subject, "reason": req.Reason})
	return toolCall{ToolCallID: id, Title: req.Subject, Kind: kind, Status: statusPending,
		Content: []toolContent{textContent(text)}, RawInput: raw}
}

func alwaysName(req windows.ApprovalRequest) string {
	switch req.Kind {
	case protocol.AskCommand:
		return "Always allow this command"
	case protocol.AskFile:
		return "Always allow this file"
	case protocol.AskFetch:
		return "Always allow this address"
	}
	return "Always allow"
}
