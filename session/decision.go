package session

import "github.com/aci-dev/aci/windows"

// Decision says how an approval (a question asked with an approval event)
// was answered and by whom: a client ("web page"), the terminal, or aci
// itself (no one answered in time). A past session shows its approvals
// with their answers from it.
type Decision struct {
	RequestID string
	Decision  string // allow, always, always_project or deny
	By        string
}

func (Decision) Type() string { return "decision" }
func (Decision) event()       {}

// decided is the decision event for answer d to question id, from by
// when d does not say who decided.
func decided(id string, d windows.Decision, by string) Decision {
	word := "deny"
	switch {
	case d.Allow && d.Always && d.Project:
		word = "always_project"
	case d.Allow && d.Always:
		word = "always"
	case d.Allow:
		word = "allow"
	}
	if d.By != "" {
		by = d.By
	}
	return Decision{RequestID: id, Decision: word, By: by}
}
