package session

import (
	"cmp"
	"slices"
	"sync"
)

// keptEvents is how many events a session keeps for clients that
// reconnect (docs/protocol.md §7).
const keptEvents = 1000

// subscriberBuffer is how far a client may fall behind before it is
// dropped (it reconnects with the last id it read and is replayed).
const subscriberBuffer = 256

// eventLog keeps the last keptEvents events, and apart from them the
// last keptEvents live ones (a running command's output pieces and its
// window as it runs): those come ten times a second and would otherwise
// push the turns' own events out.
type eventLog struct {
	main, live ring
	last       int64 // the last id given
}

type ring struct {
	evs  []Numbered
	next int // where the next event goes once full
}

func (r *ring) add(ev Numbered) {
	if len(r.evs) < keptEvents {
		r.evs = append(r.evs, ev)
		return
	}
	r.evs[r.next] = ev
	r.next = (r.next + 1) % keptEvents
}

// after appends the events with ids above id, oldest first.
func (r *ring) after(id int64, out []Numbered) []Numbered {
	n := len(r.evs)
	for i := 0; i < n; i++ {
		if ev := r.evs[(r.next+i)%n]; ev.ID > id {
			out = append(out, ev)
		}
	}
	return out
}

func (l *eventLog) add(e Event) Numbered {
	l.last++
	ev := Numbered{ID: l.last, Event: e}
	if isLive(e) {
		l.live.add(ev)
	} else {
		l.main.add(ev)
	}
	return ev
}

// after returns the kept events with ids above id, oldest first.
func (l *eventLog) after(id int64) []Numbered {
	out := l.live.after(id, l.main.after(id, nil))
	slices.SortFunc(out, func(a, b Numbered) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// isLive says an event is one of a running command's.
func isLive(e Event) bool {
	switch e := e.(type) {
	case Output:
		return true
	case Window:
		return e.Running
	}
	return false
}

type subscriber struct {
	ch   chan Numbered
	once sync.Once
}

// publish records an event, hands it to the inline consumer (Options.Events,
// which sees every event in order and may take its time: it draws) and to
// every subscriber without ever waiting: a subscriber whose buffer is full
// is dropped. Events no wire carries (reasoning) go to the inline consumer
// alone.
func (s *Session) publish(e Event) {
	e = s.redacted(e)
	if s.tel != nil {
		s.tel.event(s.ID(), e)
	}
	s.pub.Lock()
	defer s.pub.Unlock()
	if e.Type() != "" && OnWire(e, WireSSE) {
		s.mu.Lock()
		ev := s.events.add(e)
		s.turnLog.add(e)
		for sub := range s.subs {
			select {
			case sub.ch <- ev:
			default:
				s.dropLocked(sub)
			}
		}
		s.mu.Unlock()
		s.logEvent(ev)
	}
	if s.inbox != nil {
		s.inbox.push(e) // never waits: the front end reads from its own queue
	}
}

func (s *Session) dropLocked(sub *subscriber) {
	delete(s.subs, sub)
	sub.once.Do(func() { close(sub.ch) })
}

// Subscribe returns the kept events after id after, then the live ones on
// a channel. The channel closes when the subscriber fell too far behind
// or the session closed: reconnect with the last id read. stop ends the
// subscription.
func (s *Session) Subscribe(after int64) (replay []Numbered, live <-chan Numbered, stop func()) {
	sub := &subscriber{ch: make(chan Numbered, subscriberBuffer)}
	s.mu.Lock()
	defer s.mu.Unlock()
	replay = s.events.after(after)
	if s.closed {
		close(sub.ch)
		return replay, sub.ch, func() {}
	}
	s.subs[sub] = true
	return replay, sub.ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.dropLocked(sub)
	}
}
