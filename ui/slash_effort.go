package ui

import (
	"errors"
	"strings"

	"github.com/aci-dev/aci/session"
)

// cmdEffort shows the reasoning effort or, given a level, sets it for the
// next requests ("default" goes back to the model's own): the session's
// effort operation (session/ops.go).
func (r *REPL) cmdEffort(arg string) bool {
	e, err := r.sess.Effort(arg)
	switch {
	case errors.Is(err, session.ErrNotOffered):
		r.out.note("this session's reasoning effort cannot be changed")
		return false
	case err != nil:
		r.out.fail(err.Error())
		return false
	}
	if arg == "" {
		level := e.Level
		if level == "" {
			level = "the model's default"
		}
		r.out.note("reasoning effort: " + level + " (/effort " + strings.Join(session.Efforts, "|") + "|default)")
		if !e.Sent {
			r.out.note(sanitize(e.Model) + " takes no reasoning effort: none is sent to it")
		}
		return false
	}
	switch {
	case e.Level == "":
		r.out.note("reasoning effort: the model's default")
	case !e.Sent:
		r.out.note("reasoning effort: " + e.Level + " (not sent to " + sanitize(e.Model) + ", which takes none)")
	default:
		r.out.note("reasoning effort: " + e.Level)
	}
	return false
}
