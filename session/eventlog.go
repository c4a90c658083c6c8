package session

import (
	"encoding/json"

	"github.com/aci-dev/aci/agent"
)

// The transcript is the log of the session's typed events (agent/eventlog.go):
// publish writes each event a person or program could have seen through
// the transcript's one writer, in order (under s.pub), with its id. A running command's
// output pieces and its window as it runs are not written: the call's
// tool_result carries its output (cut as the transcript keeps outputs),
// and the window events after each batch give each window's state.

// logEvent writes ev, numbered, to the transcript. It runs under s.pub, so
// records go in the order events were published.
func (s *Session) logEvent(ev Numbered) {
	if s.log == nil || isLive(ev.Event) {
		return
	}
	if _, ok := ev.Event.(Recorded); ok {
		return // read back from this transcript: already in it
	}
	e := ev.Event
	if t, ok := e.(Turn); ok {
		// The question is stored once, as the user message the agent
		// writes next; replay puts it back (agent/eventlog.go).
		t.Question = ""
		e = t
	}
	if tr, ok := e.(ToolResult); ok {
		// Kept bounded as the transcript keeps every output (a diff is
		// not cut for the model); most are within and stay byte for byte.
		if out := PersonOutput(tr.Detail); agent.CutOutput(out) != out {
			tr.Detail.Diff, tr.Detail.Output = "", agent.CutOutput(out)
			e = tr
		}
	}
	data, err := Encode(e)
	if err != nil {
		return
	}
	// A record that could not be written costs the replay that event
	// only; the conversation's own records report their failures.
	_ = s.log.WriteEvent(ev.ID, data)
}

// Recorded is an event read back from a transcript: its type and its wire
// encoding, byte for byte as it was first sent. A past session's events
// are replayed as these; Stored turns them back into typed events for the
// front ends that draw.
type Recorded struct {
	Kind string
	Data json.RawMessage
}

func (e Recorded) Type() string                 { return e.Kind }
func (Recorded) event()                         {}
func (e Recorded) MarshalJSON() ([]byte, error) { return e.Data, nil }

// StoredEvents are a stored session's events, numbered as they were sent.
func StoredEvents(st agent.Session) []Numbered {
	out := make([]Numbered, 0, len(st.Events))
	for _, e := range st.Events {
		out = append(out, Numbered{ID: e.ID, Event: Recorded{Kind: e.Type, Data: e.Data}})
	}
	return out
}

// seedEvents makes a resumed session's stored events the first of its
// own, so a client reading its events from the start sees its past as it
// was, and ids carry on from them.
func (s *Session) seedEvents(st agent.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ev := range StoredEvents(st) {
		s.events.main.add(ev)
	}
	s.events.last = max(s.events.last, st.LastEventID)
}

// lastWindows gives each of wins the content of its last window event in
// the stored session: the window as it was when the session ended.
func lastWindows(st agent.Session, wins []WindowInfo) {
	at := map[string]int{}
	for i, w := range wins {
		at[w.ID] = i
	}
	for _, e := range st.Events {
		if e.Type != "window" {
			continue
		}
		var w struct {
			ID, Title, Content string
		}
		if json.Unmarshal(e.Data, &w) != nil {
			continue
		}
		if i, ok := at[w.ID]; ok {
			wins[i].Content = w.Content
			if w.Title != "" {
				wins[i].Title = w.Title
			}
		}
	}
}
