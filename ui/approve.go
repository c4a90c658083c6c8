package ui

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aci-dev/aci/windows"
)

const (
	approvePrompt = "allow? [y]es / [n]o / [a]lways this session › "
	denyPrompt    = "anything to tell the model? (Enter for nothing) › "
)

// termApprover asks the person at the terminal before a dangerous action.
// It runs on the turn's goroutine while no line is being read, so it can
// take the line editor for its question.
type termApprover struct {
	yes        bool
	out        *renderer
	in         *input
	cancelTurn func() // Ctrl-C or Ctrl-D at the question also ends the turn
}

func (a *termApprover) Approve(ctx context.Context, req windows.ApprovalRequest) windows.Decision {
	if a.yes {
		a.out.suspend()
		a.out.note(fmt.Sprintf("approved by --yes: %s (%s)", req.Subject, req.Reason))
		a.out.resumeSpinner()
		return windows.Decision{Allow: true}
	}
	if ctx.Err() != nil {
		return windows.Decision{Message: "the turn was interrupted"}
	}
	a.out.suspend()
	defer a.out.resumeSpinner()
	a.show(req)
	for {
		answer, err := a.in.ask("  " + a.out.bold.Sprint(approvePrompt))
		if err != nil {
			a.cancelTurn()
			return windows.Decision{Message: "the person interrupted the turn"}
		}
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes":
			return windows.Decision{Allow: true}
		case "a", "always":
			return windows.Decision{Allow: true, Always: true}
		case "n", "no":
			msg, err := a.in.ask("  " + denyPrompt)
			if err != nil {
				a.cancelTurn()
				msg = ""
			}
			return windows.Decision{Message: strings.TrimSpace(msg)}
		}
		a.out.note("  answer y, n or a")
	}
}

// show prints what is asked and why, the dangerous part highlighted: in
// red, or without colour marked with carets on the line below.
func (a *termApprover) show(req windows.ApprovalRequest) {
	o := a.out
	subject, part := sanitize(req.Subject), sanitize(req.Part)
	head := o.yellow.Sprint("⚠ ") + o.bold.Sprint("approval needed: ")
	lines := strings.Split(subject, "\n")
	i := -1
	if part != "" && part != subject {
		i = strings.Index(subject, part)
	}
	switch {
	case i < 0:
		o.println(head + lines[0])
	case o.color:
		hl := subject[:i] + o.alert.Sprint(part) + subject[i+len(part):]
		lines = strings.Split(hl, "\n")
		o.println(head + lines[0])
	default:
		o.println(head + lines[0])
		if !strings.Contains(subject[:i+len(part)], "\n") {
			pad := utf8.RuneCountInString("⚠ approval needed: " + subject[:i])
			o.println(strings.Repeat(" ", pad) + strings.Repeat("^", utf8.RuneCountInString(part)))
		}
	}
	for _, l := range lines[1:] {
		o.println("  " + l)
	}
	o.println("  " + o.dim.Sprint("why: "+sanitize(req.Reason)))
}
