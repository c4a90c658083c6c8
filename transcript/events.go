package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// The transcript is also the log of the session's typed events: each one
// a person or program saw goes in an event record,
// {"type":"event","time":…,"id":N,"event":<its one wire encoding>},
// beside the records the conversation needs to resume. The session
// writes them (session/eventlog.go); every reader of a past session reads
// them back through agent's replay (ParseEvent).

// StoredEvent is one event as a transcript keeps it: its id, its type
// and its wire encoding, byte for byte as it was sent.
type StoredEvent struct {
	ID   int64
	Type string
	Data json.RawMessage
}

// eventRecord is an event record as written: ParseEvent reads this layout.
type eventRecord struct {
	Type  string          `json:"type"`
	Time  string          `json:"time"`
	ID    int64           `json:"id"`
	Event json.RawMessage `json:"event"`
}

// maxWaitingEvents bounds the event records kept while no file exists
// yet (events of a session that has not asked anything).
const maxWaitingEvents = 1000

// WriteEvent appends one event record: id is its id in the session, data
// its wire encoding. Before the transcript's file exists (nothing asked
// yet) records wait in memory and go first once it is made, so that a
// session in which nothing happened still leaves no file; a turn's event
// makes it (a turn began: a reader following the file sees it at once).
func (t *File) WriteEvent(id int64, data []byte) error {
	if t == nil {
		return nil
	}
	if !json.Valid(data) {
		return errors.New("write event record: not JSON")
	}
	line, err := encodeLine(eventRecord{Type: "event", Time: Now(), ID: id, Event: data})
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		if t.meta == nil {
			return errors.New("write transcript: it is closed")
		}
		if EventType(data) != "turn" {
			if len(t.waiting) < maxWaitingEvents {
				t.waiting = append(t.waiting, line)
			}
			return nil
		}
		if err := t.ensureLocked(); err != nil {
			return err
		}
	}
	return t.writeLocked(line)
}

// EventType is an event's "type": read from the start of its encoding,
// where the encoder puts it, without parsing the rest (a resume reads
// thousands); any other shape is parsed.
func EventType(data []byte) string {
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

// ParseEvent reads an event record the way WriteEvent lays it out
// ({"type":"event","time":…,"id":…,"event":…}) without decoding its event:
// a resume reads thousands. Any other line is false, for json.Unmarshal.
// The event is a slice of line, which must not change after.
func ParseEvent(line []byte) (id int64, event json.RawMessage, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"type":"event","time":"`))
	if !ok {
		return 0, nil, false
	}
	i := bytes.IndexByte(rest, '"')
	if i < 0 {
		return 0, nil, false
	}
	if rest, ok = bytes.CutPrefix(rest[i:], []byte(`","id":`)); !ok {
		return 0, nil, false
	}
	j := bytes.IndexByte(rest, ',')
	if j < 0 {
		return 0, nil, false
	}
	id, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	if err != nil {
		return 0, nil, false
	}
	ev, ok := bytes.CutPrefix(rest[j:], []byte(`,"event":`))
	if !ok {
		return 0, nil, false
	}
	if ev, ok = bytes.CutSuffix(bytes.TrimRight(ev, " \r"), []byte("}")); !ok || !json.Valid(ev) {
		return 0, nil, false
	}
	return id, ev[:len(ev):len(ev)], true
}
