package windows

import (
	"strings"

	"github.com/aci-dev/aci/guard"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/shell"
)

// grantEffects is what a command run with a grant is to change on the
// machine: the granted paths and the judged effects, checked after it
// ran so that "exit 0" never stands for a delete or a write that only
// happened inside the sandbox (sandbox.EffectCheck).
type grantEffects struct {
	writes []string
	list   []sandbox.Effect
}

// effectsOf is v's effects when the command runs contained with its
// grant; none otherwise (outside the sandbox a path is the machine's).
func effectsOf(v guard.Verdict, granted bool) grantEffects {
	if !granted || !v.Dangerous || len(v.Writes) == 0 {
		return grantEffects{}
	}
	e := grantEffects{writes: v.Writes}
	for _, f := range v.Effects {
		e.list = append(e.list, sandbox.Effect{Path: f.Path, Gone: f.Gone})
	}
	return e
}

// missedText is what the result adds when a command that succeeded did
// not do on the machine what it was allowed for; "" otherwise.
func missedText(check *sandbox.EffectCheck, res shell.RunResult) string {
	if check == nil || res.ExitCode != 0 || res.TimedOut || res.Canceled {
		return ""
	}
	missed := check.Missed()
	if len(missed) == 0 {
		return ""
	}
	return "; but NOT DONE on the machine, whatever the exit status says: " + strings.Join(missed, "; ")
}
