package session

import "github.com/aci-dev/aci/windows"

// readOnlyMode runs a read-only command's turn (/review) in plan mode, so
// containment keeps the workspace unchanged whatever the model tries, and
// returns what puts the person's mode back. The switch is the turn's own:
// no mode event is sent, no plan is offered after it (endPlanTurn), and
// the model is told of plan mode now and of the person's mode at the next
// question (withModeNote). A mode the person sets meanwhile is the one
// that comes back (SetMode): the review itself stays in plan mode.
func (s *Session) readOnlyMode(p Prompt) (restore func()) {
	if !p.ReadOnly || s.opt.child {
		return func() {}
	}
	s.mu.Lock()
	s.readOnlyTurn, s.afterReadOnly = "/"+p.Command, s.mode.Get()
	s.mu.Unlock()
	s.mode.Set(windows.ModePlan)
	return func() {
		s.mu.Lock()
		back := s.afterReadOnly
		s.readOnlyTurn = ""
		s.mu.Unlock()
		s.mode.Set(back)
	}
}
