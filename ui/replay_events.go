package ui

import (
	"strings"

	"github.com/aci-dev/aci/session"
)

// replay shows a resumed session's last turns from its events (the
// transcript's log) through the renderer that drew them live: the
// question as the person typed it, the model's words, each action with
// how it ended, the messages added to the turn, how each question was
// answered, and the turn's figures or its interrupted mark.
func (r *REPL) replay(s session.Past) {
	var evs []session.Event
	var turns []int // where each turn's events start
	for _, ev := range s.Events {
		switch ev.(type) {
		case session.Turn, session.Text, session.ToolCall, session.ToolResult, session.Steer, session.Decision, session.Result:
		default:
			continue // drawn live only (windows, states, notices)
		}
		if t, ok := ev.(session.Turn); ok {
			if t.Turn == 1 {
				// Turns are numbered again after a /reset: the conversation
				// shown is the one since.
				turns, evs = nil, nil
			}
			turns = append(turns, len(evs))
		}
		evs = append(evs, ev)
	}
	if len(turns) == 0 {
		return
	}
	o := r.out
	o.note("── resumed session " + s.ID + " ──")
	evs = evs[turns[0]:]
	if n := len(turns); n > replayedTurns {
		o.note("… " + plural(n-replayedTurns, "earlier turn") + " not shown")
		evs = evs[turns[n-replayedTurns]-turns[0]:]
	}
	ended := true
	for _, ev := range evs {
		switch e := ev.(type) {
		case session.Turn:
			if !ended {
				o.endTurn() // a turn cut short (aci stopped)
			}
			ended = false
			o.println(o.cyan.Sprint("›") + " " + sanitize(strings.ReplaceAll(e.Question, "\n", "\n  ")))
			o.beginTurn() // its words are Markdown, as they were live
		case session.Steer:
			o.println(o.cyan.Sprint("›") + " " + sanitize(strings.ReplaceAll(e.Text, "\n", "\n  ")) + o.dim.Sprint("  ↳ added to the turn"))
		case session.Decision:
			o.println(o.dim.Sprint("  " + decisionWords(e)))
		case session.Result:
			ended = true
			o.event(e)
		default:
			o.event(ev)
		}
	}
	if !ended {
		o.endTurn()
	}
	o.note("── now ──")
	o.println("")
}

// decisionWords says how a question was answered, and by whom.
func decisionWords(d session.Decision) string {
	what := map[string]string{"allow": "allowed", "always": "allowed always", "always_project": "allowed for this project"}[d.Decision]
	if what == "" {
		what = "denied"
	}
	if d.By == "" {
		return what
	}
	return what + " (" + d.By + ")"
}
