package windows

import (
	"context"
	"sync"
)

// ApprovalRequest describes an action that needs a person's yes.
type ApprovalRequest struct {
	Kind     string // "command" or "file"
	WindowID string
	Subject  string // the command, or "write PATH" / "open PATH"
	Reason   string // why it is dangerous
	Part     string // the dangerous part of Subject, when known
}

// Decision is the person's answer.
type Decision struct {
	Allow   bool
	Always  bool   // allow this exact subject for the rest of the session
	Message string // what the person wants the model to know
}

// Approver asks a person (or a policy) whether a dangerous action may run.
// The REPL implements it; pipe mode denies or, with --yes, approves.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) Decision
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) Decision

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) Decision { return f(ctx, req) }

// sessionApprover remembers "always" answers for the exact subject.
type sessionApprover struct {
	next   Approver
	mu     sync.Mutex
	always map[string]bool
}

func (s *sessionApprover) Approve(ctx context.Context, req ApprovalRequest) Decision {
	key := req.Kind + "\x00" + req.Subject
	s.mu.Lock()
	ok := s.always[key]
	s.mu.Unlock()
	if ok {
		return Decision{Allow: true}
	}
	if s.next == nil {
		return Decision{Message: "no one is there to approve it"}
	}
	d := s.next.Approve(ctx, req)
	if d.Allow && d.Always {
		s.mu.Lock()
		s.always[key] = true
		s.mu.Unlock()
	}
	return d
}

// denied builds the result of a refused action.
func denied(req ApprovalRequest, d Decision) Result {
	text := "the person did not approve " + req.Subject + " (" + req.Reason + ")"
	if d.Message != "" {
		text += ": " + d.Message
	}
	return Result{Status: StatusDenied, Text: text}
}
