package ui

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/session"
)

func TestReasoningAndNoticesAreShownApart(t *testing.T) {
	var b strings.Builder
	r := newRenderer(&b, false, false)
	r.beginTurn()
	for _, ev := range []session.Event{
		session.Text{Text: "\nweighing ", Reasoning: true},
		session.Text{Text: "it up", Reasoning: true},
		session.Text{Text: "The answer."},
		session.Notice{Kind: "hint", Text: "asking the model to go on"},
	} {
		r.event(ev)
	}
	r.endTurn()
	if want := "weighing it up\nThe answer.\n· asking the model to go on\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
