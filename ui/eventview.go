package ui

import (
	"io"
	"strings"

	"github.com/aci-dev/aci/session"
)

// EventView draws a session's events, as they were stored or as a server
// streams them, with the renderer the REPL draws them with live: aci logs
// and aci attach show a background session this way.
type EventView struct {
	o     *renderer
	ended bool
}

// NewEventView draws on w; colour only when asked (a terminal, NO_COLOR
// unset).
func NewEventView(w io.Writer, useColor bool) *EventView {
	return &EventView{o: newRenderer(w, useColor, false), ended: true}
}

// Show draws one event as the REPL draws it; kinds drawn live only
// (windows, states) are skipped, as a resumed session's replay skips them.
func (v *EventView) Show(ev session.Event) {
	switch ev.(type) {
	case session.Turn, session.Text, session.ToolCall, session.ToolResult, session.Steer, session.Decision, session.Result, session.Notice:
	default:
		return
	}
	o := v.o
	switch e := ev.(type) {
	case session.Turn:
		if !v.ended {
			o.endTurn()
		}
		v.ended = false
		o.println(o.cyan.Sprint("›") + " " + sanitize(strings.ReplaceAll(e.Question, "\n", "\n  ")))
		o.beginTurn()
	case session.Steer:
		o.println(o.cyan.Sprint("›") + " " + sanitize(strings.ReplaceAll(e.Text, "\n", "\n  ")) + o.dim.Sprint("  ↳ added to the turn"))
	case session.Decision:
		o.println(o.dim.Sprint("  " + decisionWords(e)))
	case session.Result:
		v.ended = true
		o.event(e)
	default:
		o.event(ev)
	}
}

// Note writes one of aci's own lines (dim).
func (v *EventView) Note(s string) { v.o.note(s) }

// Line writes s as it is (a question's prompt).
func (v *EventView) Line(s string) { v.o.println(sanitize(s)) }

// InTurn says whether a turn began and has not ended.
func (v *EventView) InTurn() bool { return !v.ended }

// Flush ends a turn left open (the transcript ends mid-turn).
func (v *EventView) Flush() {
	if !v.ended {
		v.o.endTurn()
		v.ended = true
	}
}
