package ui

import (
	"strings"

	"github.com/aci-dev/aci/agent"
)

// effortClient is a client whose reasoning effort can be set.
type effortClient interface {
	Model() string
	Effort() string
	SetEffort(level string)
	TakesEffort(model string) bool
}

// cmdEffort shows the reasoning effort or, given a level, sets it for the
// next requests ("default" goes back to the model's own).
func (r *REPL) cmdEffort(arg string) bool {
	ec, ok := r.client.(effortClient)
	if !ok {
		r.out.note("this session's reasoning effort cannot be changed")
		return false
	}
	if arg == "" {
		level := ec.Effort()
		if level == "" {
			level = "the model's default"
		}
		r.out.note("reasoning effort: " + level + " (/effort " + strings.Join(agent.Efforts, "|") + "|default)")
		if !ec.TakesEffort(ec.Model()) {
			r.out.note(sanitize(ec.Model()) + " takes no reasoning effort: none is sent to it")
		}
		return false
	}
	if strings.EqualFold(arg, "default") {
		arg = ""
	}
	level, err := agent.ParseEffort(arg)
	if err != nil {
		r.out.fail(err.Error())
		return false
	}
	ec.SetEffort(level)
	switch {
	case level == "":
		r.out.note("reasoning effort: the model's default")
	case !ec.TakesEffort(ec.Model()):
		r.out.note("reasoning effort: " + level + " (not sent to " + sanitize(ec.Model()) + ", which takes none)")
	default:
		r.out.note("reasoning effort: " + level)
	}
	return false
}
