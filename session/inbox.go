package session

import (
	"fmt"
	"strings"
	"sync"
)

// maxQueuedOutput bounds the output one command has waiting for a front
// end that fell behind: past it the oldest part gives way to a line
// saying how much, as a terminal scrolls (the result's output and the
// window keep what the model saw).
const maxQueuedOutput = 512 << 10

// inbox is an inline front end's own queue (Options.Events): publish
// puts each event in it and never waits; one goroutine hands them on in
// order. A front end that falls behind (an editor that stops reading)
// stalls only itself: what piles up meanwhile is bounded, a running
// command's output pieces joining and a running window's contents
// replacing the one before, and reaches it once it reads again.
type inbox struct {
	deliver func(Event)

	mu     sync.Mutex
	cond   *sync.Cond // signals an event queued, or the queue emptied
	evs    []Event
	busy   bool // deliver is running
	closed bool
}

// queuedOutput is an output event waiting, its pieces joined as they come.
type queuedOutput struct {
	Output
	b strings.Builder
}

func newInbox(deliver func(Event)) *inbox {
	in := &inbox{deliver: deliver}
	in.cond = sync.NewCond(&in.mu)
	go in.run()
	return in
}

// push queues e; it never waits for the front end.
func (in *inbox) push(e Event) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return
	}
	if in.joinLocked(e) {
		return
	}
	if o, ok := e.(Output); ok {
		q := &queuedOutput{Output: o}
		q.b.WriteString(o.Text)
		e = q
	}
	in.evs = append(in.evs, e)
	in.cond.Broadcast()
}

// joinLocked folds e into an event still waiting, where one says the
// same (a running command's output joins the piece before it; a running
// window's content replaces what it showed before). It looks back only
// over other output and windows, so the order of everything else holds.
func (in *inbox) joinLocked(e Event) bool {
	for i := len(in.evs) - 1; i >= 0; i-- {
		switch q := in.evs[i].(type) {
		case *queuedOutput:
			o, ok := e.(Output)
			if !ok || o.CallID != q.CallID || o.TaskID != q.TaskID || o.WindowID != q.WindowID {
				continue
			}
			q.b.WriteString(o.Text)
			if q.b.Len() > 2*maxQueuedOutput {
				text := capOutput(q.b.String())
				q.b.Reset()
				q.b.WriteString(text)
			}
			return true
		case Window:
			w, ok := e.(Window)
			if !ok || !w.Running || !q.Running || w.ID != q.ID {
				continue
			}
			in.evs[i] = w
			return true
		default:
			return false
		}
	}
	return false
}

// capOutput keeps the last maxQueuedOutput bytes of text, from a line's
// start, after a line saying what gave way.
func capOutput(text string) string {
	if len(text) <= maxQueuedOutput {
		return text
	}
	cut := len(text) - maxQueuedOutput/2
	for i := cut; i < len(text) && i < cut+4096; i++ {
		if text[i] == '\n' {
			cut = i + 1
			break
		}
	}
	return fmt.Sprintf("[… %d bytes printed while this reader fell behind …]\n", cut) + text[cut:]
}

func (in *inbox) run() {
	in.mu.Lock()
	defer in.mu.Unlock()
	for {
		for len(in.evs) == 0 && !in.closed {
			in.cond.Wait()
		}
		if len(in.evs) == 0 {
			return
		}
		evs := in.evs
		in.evs = nil
		in.busy = true
		in.mu.Unlock()
		for _, e := range evs {
			if q, ok := e.(*queuedOutput); ok {
				q.Text = capOutput(q.b.String())
				e = q.Output
			}
			in.deliver(e)
		}
		in.mu.Lock()
		in.busy = false
		in.cond.Broadcast()
	}
}

// flush waits until the front end has taken every event queued so far:
// a turn's end (Run returns once its events are shown), and a question
// asked in the front end's own way (after the call it is about).
func (in *inbox) flush() {
	in.mu.Lock()
	defer in.mu.Unlock()
	for (len(in.evs) > 0 || in.busy) && !in.closed {
		in.cond.Wait()
	}
}

// close delivers what is queued, then ends the goroutine; it does not
// wait for a front end that stopped reading.
func (in *inbox) close() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.closed = true
	in.cond.Broadcast()
}

// flushEvents waits until the inline front end has the events so far
// (none when the session has none).
func (s *Session) flushEvents() {
	if s.inbox != nil {
		s.inbox.flush()
	}
}

// Flush waits until the front end reading Options.Events has taken every
// event so far: the REPL draws what its own command did (a compression, a
// reset) before its prompt. Turns do it themselves.
func (s *Session) Flush() { s.flushEvents() }
