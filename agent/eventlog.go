package agent

import (
	"bytes"
	"encoding/json"
	"errors"
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
// session in which nothing happened still leaves no file.
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

// addEvent keeps an event record read back from a transcript.
func (s *Session) addEvent(r Record) {
	typ := eventType(r.Event)
	if typ == "" {
		s.Damaged++
		return
	}
	s.Events = append(s.Events, StoredEvent{ID: r.ID, Type: typ, Data: r.Event})
	s.LastEventID = max(s.LastEventID, r.ID)
	s.logged = true
	if typ == "turn" {
		s.turnEvent = len(s.Events)
	}
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

// fillTurnEvent gives the turn event awaiting its question (stored once,
// as the user message that follows it) the question's text.
func (s *Session) fillTurnEvent(question string) {
	if s.turnEvent == 0 {
		return
	}
	e := &s.Events[s.turnEvent-1]
	s.turnEvent = 0
	var t struct {
		Type     string `json:"type"`
		Turn     int    `json:"turn"`
		Question string `json:"question"`
	}
	if json.Unmarshal(e.Data, &t) != nil || t.Question != "" {
		return
	}
	t.Question = question
	if data, err := marshalEvent(t); err == nil {
		e.Data = data
	}
}

// marshalEvent encodes v as the events are: no HTML escaped.
func marshalEvent(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// synthesizeEvents gives a transcript written before event records (an
// old one) the events its records tell: each question's turn, the model's
// words, each call with how it ended, the steered messages and a result
// per turn. What old transcripts never kept (approvals, per-turn figures,
// cancel marks, window contents) stays unknown.
func (s *Session) synthesizeEvents() {
	if s.logged {
		return
	}
	actions := map[string]ActionInfo{}
	for _, t := range s.Turns {
		for _, a := range t.Actions {
			actions[a.CallID] = a
		}
	}
	turn := 0
	add := func(typ string, v any) {
		data, err := marshalEvent(v)
		if err != nil {
			return
		}
		s.LastEventID++
		s.Events = append(s.Events, StoredEvent{ID: s.LastEventID, Type: typ, Data: data})
	}
	end := func() {
		if turn == 0 {
			return
		}
		r := oldResult{Type: "result", SessionID: s.ID, Denials: []any{}}
		if turn <= len(s.Turns) {
			r.Result = s.Turns[turn-1].Answer
		}
		if r.Result == "" {
			// Cancelled or failed: which, old transcripts did not keep.
			r.IsError, r.Error = true, "no answer recorded"
		}
		add("result", r)
	}
	for _, it := range s.Shown {
		switch it.Kind {
		case "question":
			end()
			turn++
			add("turn", struct {
				Type     string `json:"type"`
				Turn     int    `json:"turn"`
				Question string `json:"question"`
			}{"turn", turn, it.Text})
		case "answer":
			add("text", struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}{"text", it.Text})
		case "steer":
			add("steer", struct {
				Type string `json:"type"`
				Turn int    `json:"turn"`
				Text string `json:"text"`
				Step int    `json:"step"`
			}{"steer", turn, it.Text, 0})
		case "call":
			c := it.Call
			params := it.Params
			if params == nil {
				params = map[string]json.RawMessage{}
			}
			add("tool_call", struct {
				Type     string                     `json:"type"`
				CallID   string                     `json:"call_id"`
				WindowID string                     `json:"window_id"`
				ActionID string                     `json:"action_id"`
				Params   map[string]json.RawMessage `json:"params"`
			}{"tool_call", c.ID, c.WindowID, c.ActionID, params})
			add("tool_result", struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
				Status string `json:"status"`
				Text   string `json:"text"`
				Output string `json:"output,omitempty"`
			}{"tool_result", c.ID, c.Status, "", actions[c.ID].Output})
		}
	}
	end()
}

// oldResult is the result event an old transcript's turn is given: its
// answer, with no figures (they were never kept).
type oldResult struct {
	Type       string   `json:"type"`
	IsError    bool     `json:"is_error"`
	Result     string   `json:"result"`
	Error      string   `json:"error,omitempty"`
	SessionID  string   `json:"session_id"`
	NumSteps   int      `json:"num_steps"`
	DurationMS int64    `json:"duration_ms"`
	Usage      noUsage  `json:"usage"`
	Cost       *float64 `json:"total_cost_usd"`
	Denials    []any    `json:"denials"`
}

// noUsage is a result's usage when nothing was counted.
type noUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	CachedTokens     int64 `json:"cached_tokens"`
}
