package session

import "sync"

// Event is one thing that happened in a session, as the wire carries it:
// the objects of PROTOCOL.md §6 and §7.
type Event struct {
	ID   int64          // rising within the session
	Type string         // text, tool_call, tool_result, notice, result, state, approval, window, turn
	Data map[string]any // the JSON object
}

// keptEvents is how many events a session keeps for clients that
// reconnect (PROTOCOL.md §7).
const keptEvents = 1000

// subscriberBuffer is how far a client may fall behind before it is
// dropped (it reconnects with the last id it read and is replayed).
const subscriberBuffer = 256

// eventLog is a ring of the last keptEvents events.
type eventLog struct {
	ring []Event
	next int   // where the next event goes in ring
	last int64 // the last id given
}

func (l *eventLog) add(typ string, data map[string]any) Event {
	l.last++
	ev := Event{ID: l.last, Type: typ, Data: data}
	if len(l.ring) < keptEvents {
		l.ring = append(l.ring, ev)
		return ev
	}
	l.ring[l.next] = ev
	l.next = (l.next + 1) % keptEvents
	return ev
}

// after returns the kept events with ids above id, oldest first.
func (l *eventLog) after(id int64) []Event {
	var out []Event
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
	ch   chan Event
	once sync.Once
}

// publish records an event and hands it to every subscriber without ever
// waiting: a subscriber whose buffer is full is dropped.
func (s *Session) publish(typ string, data map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev := s.events.add(typ, data)
	for sub := range s.subs {
		select {
		case sub.ch <- ev:
		default:
			s.dropLocked(sub)
		}
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
func (s *Session) Subscribe(after int64) (replay []Event, live <-chan Event, stop func()) {
	sub := &subscriber{ch: make(chan Event, subscriberBuffer)}
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
