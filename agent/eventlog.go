package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"time"
)

// The transcript is also the log of the session's typed events: each one
// a person or program saw goes in an event record,
// {"type":"event","id":N,"event":<its one wire encoding>}, beside the
// records the conversation needs to resume. The session writes them
// (session/eventlog.go); every reader of a past session (the page, the
// server's history and replay, the REPL, ACP) reads them back from here.

// StoredEvent is one event as a transcript keeps it: its id, its type
// and its wire encoding, byte for byte as it was sent.
type StoredEvent struct {
	ID   int64
	Type string
	Data json.RawMessage
}

// maxWaitingEvents bounds the event records kept while no file exists
// yet (events of a session that has not asked anything).
const maxWaitingEvents = 1000

// WriteEvent appends one event record: id is its id in the session, data
// its wire encoding. Before the transcript's file exists (nothing asked
// yet) records wait in memory and go first once it is made, so that a
// session in which nothing happened still leaves no file; a turn's event
// makes it (a turn began: a reader following the file sees it at once).
func (t *Transcript) WriteEvent(id int64, data []byte) error {
	if t == nil {
		return nil
	}
	if !json.Valid(data) {
		return errors.New("write event record: not JSON")
	}
	r := Record{Type: "event", Time: time.Now().UTC().Format(time.RFC3339), ID: id, Event: json.RawMessage(data)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		if t.meta == nil {
			return errors.New("write transcript: it is closed")
		}
		if eventType(data) == "turn" {
			if err := t.createLocked(); err != nil {
				return err
			}
			return t.writeLocked(r)
		}
		if len(t.waiting) < maxWaitingEvents {
			t.waiting = append(t.waiting, r)
		}
		return nil
	}
	return t.writeLocked(r)
}

// flushWaitingLocked writes the event records that waited for the file.
func (t *Transcript) flushWaitingLocked() error {
	w := t.waiting
	t.waiting = nil
	for _, r := range w {
		if err := t.writeLocked(r); err != nil {
			return err
		}
	}
	return nil
}

// addEvent keeps an event record read back from a transcript; false if it
// is not one.
func (s *Session) addEvent(r Record) bool {
	typ := eventType(r.Event)
	if typ == "" {
		s.Damaged++
		return false
	}
	s.Events = append(s.Events, StoredEvent{ID: r.ID, Type: typ, Data: r.Event})
	s.LastEventID = max(s.LastEventID, r.ID)
	s.logged = true
	s.Legacy = nil
	return true
}

// eventType is an event's "type": read from the start of its encoding,
// where the encoder puts it, without parsing the rest (a resume reads
// thousands); any other shape is parsed.
func eventType(data []byte) string {
	const lead = `{"type":"`
	if rest, ok := bytes.CutPrefix(data, []byte(lead)); ok {
		if i := bytes.IndexByte(rest, '"'); i > 0 && bytes.IndexByte(rest[:i], '\\') < 0 {
			return string(rest[:i])
		}
	}
	var head struct {
		Type string `json:"type"`
	}
	if len(data) == 0 || json.Unmarshal(data, &head) != nil {
		return ""
	}
	return head.Type
}

// eventRecord reads an event record the way Write lays it out
// ({"type":"event","time":…,"id":…,"event":…}) without decoding its event:
// a resume reads thousands. Any other line is false, for json.Unmarshal.
// The record's event is a slice of line, which must not change after.
func eventRecord(line []byte, r *Record) bool {
	rest, ok := bytes.CutPrefix(line, []byte(`{"type":"event","time":"`))
	if !ok {
		return false
	}
	i := bytes.IndexByte(rest, '"')
	if i < 0 {
		return false
	}
	if rest, ok = bytes.CutPrefix(rest[i:], []byte(`","id":`)); !ok {
		return false
	}
	j := bytes.IndexByte(rest, ',')
	if j < 0 {
		return false
	}
	id, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	if err != nil {
		return false
	}
	ev, ok := bytes.CutPrefix(rest[j:], []byte(`,"event":`))
	if !ok {
		return false
	}
	if ev, ok = bytes.CutSuffix(bytes.TrimRight(ev, " \r"), []byte("}")); !ok || !json.Valid(ev) {
		return false
	}
	*r = Record{Type: "event", ID: id, Event: ev[:len(ev):len(ev)]} // a slice of the line: callers hand over a line they do not reuse
	return true
}
