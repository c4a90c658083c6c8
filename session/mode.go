package session

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/aci-dev/aci/windows"
)

// ModeEvent says the session's permission mode changed, or that a turn in
// plan mode ended with a plan the person may accept (PlanReady).
type ModeEvent struct {
	Mode      windows.PermMode
	PlanReady bool
}

func (ModeEvent) Type() string { return "mode" }
func (ModeEvent) event()       {}

// ErrNoPlan is AcceptPlan with no plan waiting.
var ErrNoPlan = errors.New("no plan is waiting to be accepted (the last turn did not end in plan mode)")

// AcceptedPlanQuestion is the question that carries out an accepted plan.
const AcceptedPlanQuestion = "The plan is accepted: carry it out now."

// Mode is the session's permission mode as the person chose it: during
// /review's turn, which runs in plan mode, the one that comes back after it.
func (s *Session) Mode() windows.PermMode {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readOnlyTurn != "" {
		return s.afterReadOnly
	}
	return s.mode.Get()
}

// SetMode changes the permission mode; the model is told at its next
// question. Everyone watching gets a mode event.
func (s *Session) SetMode(m windows.PermMode) {
	s.mu.Lock()
	s.planReady = false
	if s.readOnlyTurn != "" {
		// /review's turn keeps plan mode; m follows it (review.go).
		changed := s.afterReadOnly != m
		s.afterReadOnly = m
		s.mu.Unlock()
		if changed {
			s.publish(ModeEvent{Mode: m})
		}
		return
	}
	s.mu.Unlock()
	if s.mode.Set(m) {
		s.publish(ModeEvent{Mode: m})
	}
}

// PlanReady reports whether the last turn ended in plan mode with an
// answer the person may accept.
func (s *Session) PlanReady() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.planReady && s.mode.Get() == windows.ModePlan
}

// AcceptPlan switches a session whose last turn ended with a plan to
// default mode and returns the question that carries the plan out, for
// the front end to run (Run or Start).
func (s *Session) AcceptPlan() (string, error) {
	if !s.PlanReady() {
		return "", ErrNoPlan
	}
	s.mu.Lock()
	s.planAccepted = true
	s.mu.Unlock()
	s.SetMode(windows.ModeDefault)
	return AcceptedPlanQuestion, nil
}

// withModeNote puts a line before the question when the mode differs from
// the one the model was last told: an appended message, so the request's
// prefix (system prompt and history) stays as the provider cached it.
func (s *Session) withModeNote(question string) string {
	m := s.mode.Get()
	s.mu.Lock()
	told, accepted, review, waiting := s.toldMode, s.planAccepted, s.readOnlyTurn, s.planReady
	s.toldMode, s.planAccepted, s.planReady = m, false, false
	s.mu.Unlock()
	if waiting {
		// A new question leaves the plan unaccepted: whoever offered it offers it no more.
		s.publish(ModeEvent{Mode: m})
	}
	if told == m || told == "" && m == windows.ModeDefault || s.opt.child {
		return question // a child is told its mode with its task (child.go)
	}
	note := "[aci: permission mode " + string(m) + ": " + m.Describe() + ".]"
	switch {
	case m == windows.ModePlan && review != "":
		note = "[aci: permission mode plan for this " + review + " turn: " + m.Describe() + ", whatever you try. " +
			"Answer with your findings; the person's mode comes back after this turn.]"
	case m == windows.ModePlan:
		note = "[aci: permission mode plan: " + m.Describe() + ", whatever you try. Investigate what you need, " +
			"then end your answer with a plan: numbered steps, the files you would change and how you would check the result. " +
			"The person may accept it; you then carry it out.]"
	case accepted:
		note = "[aci: the person accepted your plan; permission mode " + string(m) + ": " + m.Describe() + ". Files and commands can change again.]"
	}
	return note + "\n\n" + question
}

// planStep is a numbered step: "1. open main.go", "2) run the tests".
var planStep = regexp.MustCompile(`(?m)^\s*\d+[.)]\s+\S`)

// IsPlan reports whether a plan turn's answer is a plan the person may
// accept: the model is told to end with numbered steps, so an answer with
// at least one numbered step is one; a reply such as "the project is a Go
// CLI" is not, and offers nothing to accept.
func IsPlan(answer string) bool { return planStep.MatchString(answer) }

// endPlanTurn marks a plan turn that ended well with a plan (IsPlan).
func (s *Session) endPlanTurn(answer string, err error) {
	s.mu.Lock()
	review := s.readOnlyTurn != ""
	s.mu.Unlock()
	// A child's answer goes to its parent, and /review's is a review: neither is a plan to accept.
	if err != nil || s.mode.Get() != windows.ModePlan || s.opt.child || review || !IsPlan(answer) {
		return
	}
	s.mu.Lock()
	s.planReady = true
	s.mu.Unlock()
	s.publish(ModeEvent{Mode: windows.ModePlan, PlanReady: true})
}

// yesApprover answers every question in yes mode, saying so once; in the
// other modes next (the front end) is asked. Deny rules come before it
// (windows), so yes never overrides them.
func (s *Session) yesApprover(next windows.Approver) windows.Approver {
	return windows.ApproverFunc(func(ctx context.Context, req windows.ApprovalRequest) windows.Decision {
		if s.initAllows(req) {
			s.publish(Notice{Kind: "info", Text: "allowed for your /init: " + s.f.cfg.Agent.Redact(req.Subject)})
			return windows.Decision{Allow: true}
		}
		if s.mode.Get() == windows.ModeYes {
			s.publish(Notice{Kind: "info", Text: fmt.Sprintf("approved by --yes: %s (%s)", s.f.cfg.Agent.Redact(req.Subject), req.Reason)})
			return windows.Decision{Allow: true}
		}
		s.notify("aci needs your permission: " + s.f.cfg.Agent.Redact(req.Subject))
		return next.Approve(ctx, req)
	})
}

// modeAsResumed says the mode a resumed session starts in when it is not
// the one its stored events last said (and a plan waiting then waits no
// more), so whoever replays the events (the page) ends on the session's
// mode, not on a plan of an earlier run.
func (s *Session) modeAsResumed(evs []Numbered) {
	last := ModeEvent{Mode: windows.ModeDefault}
	for _, e := range evs {
		if r, _ := e.Event.(Recorded); r.Typed != nil {
			if m, ok := r.Typed.(ModeEvent); ok {
				last = m
			}
		}
	}
	if m := s.mode.Get(); last.Mode != m || last.PlanReady {
		s.publish(ModeEvent{Mode: m})
	}
}
