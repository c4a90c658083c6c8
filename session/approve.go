package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aci-dev/aci/windows"
)

// ErrNoRequest is a decision for a question that is not waiting.
var ErrNoRequest = errors.New("no such question is waiting")

// ask is the approver of sessions that have none of their own: the
// question becomes an approval event and waits for Decide, the turn's
// end, or the timeout (then it is denied).
func (s *Session) ask(ctx context.Context, req windows.ApprovalRequest) windows.Decision {
	return s.askClients(ctx, req, nil)
}

// askClients asks the clients; with shared (the terminal is asked too),
// the question's id is given to it and no timeout denies it.
func (s *Session) askClients(ctx context.Context, req windows.ApprovalRequest, shared *SharedQuestion) windows.Decision {
	ch := make(chan windows.Decision, 1)
	s.mu.Lock()
	s.reqSeq++
	id := fmt.Sprintf("req_%d", s.reqSeq)
	if shared != nil {
		shared.requestID = id
	}
	s.pending[id] = ch
	call := s.call
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	redact := s.f.cfg.Agent.Redact
	ev := Approval{RequestID: id, WindowID: req.WindowID, Params: map[string]any{},
		Reason: redact(req.Reason), Kind: req.Kind, Subject: redact(req.Subject), Diff: redact(req.Diff)}
	if call != nil {
		// The call that asks (a launcher's open asks for the window it opens).
		ev.Title = call.title
	}
	if call != nil && call.windowID == req.WindowID {
		ev.ActionID, ev.Params = call.actionID, call.params
	}
	s.setState(StateAwaitingApproval)
	s.publish(ev)
	defer s.setState(StateExecuting)
	timeout := s.f.cfg.ApprovalTimeout
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	if shared != nil {
		timer.Stop() // the person at the terminal is asked too: no one denies for them
	}
	select {
	case d := <-ch:
		s.publish(decided(id, d, ByWebPage))
		return d
	case <-ctx.Done():
		return windows.Decision{By: "aci", Message: "the turn was cancelled before anyone answered"}
	case <-timer.C:
		d := windows.Decision{By: "aci", Message: fmt.Sprintf("no one answered within %s", timeout)}
		s.publish(decided(id, d, ""))
		return d
	}
}

// Decide answers the waiting question id.
func (s *Session) Decide(id string, d windows.Decision) error {
	s.mu.Lock()
	ch, ok := s.pending[id]
	if ok {
		delete(s.pending, id)
	}
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrNoRequest, id)
	}
	ch <- d
	return nil
}

// Pending lists the ids of the questions waiting now.
func (s *Session) Pending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.pending {
		ids = append(ids, id)
	}
	return ids
}
