package agent

import "github.com/aci-dev/aci/transcript"

// The transcript is also the log of the session's typed events (package
// transcript): the session writes them; replay keeps them, undecoded, for
// the one place that reads them back (session.StoredEvents).

// addEvent keeps an event record read back from a transcript; false if it
// is not one.
func (s *Session) addEvent(r Record) bool {
	typ := transcript.EventType(r.Event)
	if typ == "" {
		s.Damaged++
		return false
	}
	s.Events = append(s.Events, transcript.StoredEvent{ID: r.ID, Type: typ, Data: r.Event})
	s.LastEventID = max(s.LastEventID, r.ID)
	s.logged = true
	s.Legacy = nil
	return true
}
