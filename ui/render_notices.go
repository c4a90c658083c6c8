package ui

import (
	"fmt"
	"io"
	"sync"
)

// Notices carries the model client's one-line notes (retries, fallbacks).
// They go to stderr as "aci: …" until the REPL takes them over, so that on
// a terminal they are drawn between its own lines rather than through the
// spinner. The client is built before the REPL exists, hence the hand-over.
type Notices struct {
	mu sync.Mutex
	w  io.Writer
	to func(string)
}

// NewNotices writes notes to w until a REPL takes them.
func NewNotices(w io.Writer) *Notices { return &Notices{w: w} }

// Notify shows one note; it is the client's Notify func.
func (n *Notices) Notify(s string) {
	n.mu.Lock()
	to := n.to
	n.mu.Unlock()
	if to != nil {
		to(s)
		return
	}
	fmt.Fprintln(n.w, "aci:", s)
}

func (n *Notices) redirect(to func(string)) {
	n.mu.Lock()
	n.to = to
	n.mu.Unlock()
}

// interject writes a dim note in the middle of a turn: the spinner makes
// room and comes back.
func (r *renderer) interject(s string) {
	r.interjectStyled(r.dim.Sprint(sanitize(s)))
}

// interjectStyled is interject for a line already styled.
func (r *renderer) interjectStyled(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	label := r.spin.activeLocked()
	r.spin.stopLocked()
	// A Markdown preview cannot be erased once a line is printed under
	// it: render what it holds first.
	r.flushProseLocked()
	r.endLineLocked()
	fmt.Fprintln(r.w, s)
	if label != "" {
		r.spin.startLocked(label)
	}
}
