package session

import "sync"

// keptEvents is how many events a session keeps for clients that
// reconnect (PROTOCOL.md §7).
const keptEvents = 1000

// subscriberBuffer is how far a client may fall behind before it is
// dropped (it reconnects with the last id it read and is replayed).
const subscriberBuffer = 256

// eventLog is a ring of the last keptEvents events.
type eventLog struct {
	ring []Numbered
	next int   // where the next event goes in ring
	last int64 // the last id given
}

func (l *eventLog) add(e Event) Numbered {
	l.last++
	ev := Numbered{ID: l.last, Event: e}
	if len(l.ring) < keptEvents {
		l.ring = append(l.ring, ev)
		return ev
	}
	l.ring[l.next] = ev
	l.next = (l.next + 1) % keptEvents
	return ev
}

// after returns the kept events with ids above id, oldest first.
func (l *eventLog) after(id int64) []Numbered {
	var out []Numbered
	n := len(l.ring)
	for i := 0; i < n; i++ {
		ev := l.ring[(l.next+i)%n]
		if ev.ID > id {
			out = append(out, ev)
		}
	}
	return out
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
	s.pub.Lock()
	defer s.pub.Unlock()
	if e.Type() != "" && OnWire(e, WireSSE) {
		s.mu.Lock()
		ev := s.events.add(e)
		for sub := range s.subs {
			select {
			case sub.ch <- ev:
			default:
				s.dropLocked(sub)
			}
		}
		s.mu.Unlock()
	}
	if s.opt.Events != nil {
		s.opt.Events(e)
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

// LastEventID is the id of the latest event.
func (s *Session) LastEventID() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events.last
}
