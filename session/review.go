package session

import "github.com/aci-dev/aci/windows"

// readOnlyMode runs a read-only command's turn (/review) in plan mode, so
// containment keeps the workspace unchanged whatever the model tries, and
// returns what puts the person's mode back. The switch is the turn's own:
// no mode event is sent, no plan is offered after it (endPlanTurn), and
// the model is told of plan mode now and of the person's mode at the next
// question (withModeNote). A mode the person sets meanwhile stays.
func (s *Session) readOnlyMode(p Prompt) (restore func()) {
	old := s.mode.Get()
	if !p.ReadOnly || s.opt.child {
		return func() {}
	}
	s.mu.Lock()
	s.readOnlyTurn = "/" + p.Command
	s.mu.Unlock()
	s.mode.Set(windows.ModePlan)
	return func() {
		s.mu.Lock()
		ours := s.readOnlyTurn != ""
		s.readOnlyTurn = ""
		s.mu.Unlock()
		if ours {
			s.mode.Set(old)
		}
	}
}
