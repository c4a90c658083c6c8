package ui

import (
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// decidedElsewhere says in the terminal what the web page decided.
func (a *termApprover) decidedElsewhere(q *session.SharedQuestion) windows.Decision {
	o := a.out
	d, by := q.Decided()
	from := "from the " + by
	if by == "" {
		o.println("  " + o.yellow.Sprint("⊘ denied: the turn ended"))
		return windows.Decision{Message: "the turn was interrupted"}
	}
	switch {
	case d.Allow && d.Always:
		o.println("  " + o.green.Sprint("✓ always allowed "+from))
	case d.Allow:
		o.println("  " + o.green.Sprint("✓ allowed "+from))
	default:
		o.println("  " + o.yellow.Sprint("⊘ denied "+from))
	}
	return d
}
