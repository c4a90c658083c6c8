package windows

import (
	"fmt"

	"github.com/aci-dev/aci/tools/shell"
)

// A child's mode (an agent window's conversation) is never freer than its
// parent's: its switch is limited by the parent's, read at each action, so
// a parent that narrows its mode narrows its running children at once.

// freedom orders the modes from plan (changes nothing) to yes (asks
// nothing).
func freedom(m PermMode) int {
	switch m {
	case ModePlan:
		return 0
	case ModeAsk:
		return 1
	case ModeYes:
		return 3
	}
	return 2
}

// Narrower is the stricter of a and b.
func Narrower(a, b PermMode) PermMode {
	if freedom(b) < freedom(a) {
		return b
	}
	return a
}

// Under limits s by limit: s's mode is never freer than limit's (nil
// limits nothing). It returns s.
func (s *ModeSwitch) Under(limit *ModeSwitch) *ModeSwitch {
	s.mu.Lock()
	s.limit = limit
	s.mu.Unlock()
	return s
}

// agentMode is the mode a child starts in: plan unless the parent asks
// for default, and never freer than the parent's mode nor yes. note says
// why it is narrower than asked ("" when it is as asked).
func agentMode(asked string, parent PermMode) (mode PermMode, note string, err error) {
	switch asked {
	case "", string(ModePlan):
		return ModePlan, "", nil
	case string(ModeDefault):
		mode = Narrower(ModeDefault, parent)
		if mode != ModeDefault {
			note = fmt.Sprintf("%s mode, as the parent's mode is %s", mode, parent)
		}
		return mode, note, nil
	}
	return "", "", fmt.Errorf("unknown mode %q for an agent: plan (read-only, the default) or default", asked)
}

// planContainment replaces the sandbox's usual hint (run it again
// uncontained) on a command that failed in plan mode: there the workspace
// is read-only on purpose, and uncontained runs are refused.
func (w *bashWindow) planContainment(res *shell.RunResult) string {
	if res.Containment == "" || w.env.Mode.Get() != ModePlan {
		return ""
	}
	res.Containment = ""
	return hint("plan_mode", "This command ran in plan mode, with the workspace read-only on purpose: nothing can change in this mode, and running it uncontained is refused. Investigate by reading.")
}
