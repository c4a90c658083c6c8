package session

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/aci-dev/aci/agent"
)

// The transcript is the log of the session's typed events (package
// transcript): publish writes each event a person or program could have
// seen through the transcript's one writer, in order (under s.pub), with
// its id, straight to the file: no event goes through package agent. A running command's
// output pieces and its window as it runs are not written: the call's
// tool_result carries its output (cut as the transcript keeps outputs),
// and the window events after each batch give each window's state.

// logQuestion stores the running turn's question as the person typed it,
// before the question the model gets (asked; "" when none is sent). The
// person's words are stored once: in a question record when aci added to
// them (a mode note, a command's expansion, hook context), else as the
// question message that follows. The turn event is stored without them
// and given them back when read (StoredEvents, from agent.Session.Asked).
func (s *Session) logQuestion(typed, asked string) {
	if typed != asked {
		s.log.Write(agent.QuestionRecord(typed))
	}
}

// logEvent writes ev, numbered, to the transcript. It runs under s.pub, so
// records go in the order events were published. The model's words come
// in many pieces: consecutive ones are written as one text record, with
// the last piece's id, when the next other event comes (or the session
// closes), so a replay shows them as one.
func (s *Session) logEvent(ev Numbered) {
	if s.log == nil || isLive(ev.Event) {
		return
	}
	if _, ok := ev.Event.(Recorded); ok {
		return // read back from this transcript: already in it
	}
	if t, ok := ev.Event.(Text); ok {
		if s.heldWords.ID != 0 {
			t.Text = s.heldWords.Event.(Text).Text + t.Text
		}
		s.heldWords = Numbered{ID: ev.ID, Event: t}
		return
	}
	s.flushWords()
	if st, ok := ev.Event.(StateEvent); ok && st.State != StateIdle {
		// The loop's state as it changes within a turn: no reader of a
		// past session shows it, so it is not written; the words before
		// it stay a record of their own. Idle, a turn's last event, is:
		// the next session's ids go on after it.
		return
	}
	if t, ok := ev.Event.(Turn); ok {
		t.Question = "" // stored once, after it (logQuestion)
		ev.Event = t
	}
	s.writeEvent(ev)
}

// flushWords writes the words held back by logEvent. It runs under s.pub.
func (s *Session) flushWords() {
	if s.heldWords.ID != 0 {
		w := s.heldWords
		s.heldWords = Numbered{}
		s.writeEvent(w)
	}
}

// writeEvent writes one event record.
func (s *Session) writeEvent(ev Numbered) {
	e := ev.Event
	if tr, ok := e.(ToolResult); ok {
		// Kept bounded as the transcript keeps every output (a diff is
		// not cut for the model); most are within and stay byte for byte.
		if out := PersonOutput(tr.Detail); cutOutput(out) != out {
			tr.Detail.Diff, tr.Detail.Output = "", cutOutput(out)
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

// Recorded is an event read back from a transcript: its type, its wire
// encoding byte for byte as it was first sent (what the server replays),
// and Typed, the event it decodes to (what the front ends that draw read;
// nil for a type this aci does not know).
type Recorded struct {
	Kind  string
	Data  json.RawMessage
	Typed Event
}

func (e Recorded) Type() string                 { return e.Kind }
func (Recorded) event()                         {}
func (e Recorded) MarshalJSON() ([]byte, error) { return e.Data, nil }

// StoredEvents are a stored session's events, numbered as they were sent,
// each with its typed event: the one place a transcript's events are read
// back. An older transcript's are made here from its records (oldEvents).
// A turn event is stored without its question (logTurn): it is given it
// back here.
func StoredEvents(st agent.Session) []Numbered {
	if len(st.Events) == 0 && len(st.Legacy) > 0 {
		return oldEvents(st)
	}
	out := make([]Numbered, 0, len(st.Events))
	lastFirst := 0 // where the conversation since the last /reset begins
	for i, e := range st.Events {
		rec := Recorded{Kind: e.Type, Data: e.Data}
		if ev, err := Decode(e.Type, e.Data); err == nil {
			rec.Typed = ev
			if t, ok := ev.(Turn); ok && t.Turn == 1 {
				lastFirst = i
			}
		}
		out = append(out, Numbered{ID: e.ID, Event: rec})
	}
	for i := lastFirst; i < len(out); i++ {
		rec := out[i].Event.(Recorded)
		if t, ok := rec.Typed.(Turn); ok && t.Question == "" && t.Turn >= 1 && t.Turn <= len(st.Asked) {
			t.Question = st.Asked[t.Turn-1].Text
			if !st.Asked[t.Turn-1].Typed {
				t.Question = typedOf(t.Question) // an older aci's: the model's words
			}
			rec.Typed = t
			if data, err := Encode(t); err == nil {
				rec.Data = data
			}
			out[i].Event = rec
		}
	}
	return out
}

// Settled is evs, the events of a transcript that may still be written,
// without the last turn's while that turn's question is not stored yet:
// the person's words are written once aci knows what the model gets
// (logQuestion), after the turn's event and any UserPromptSubmit hook. A
// reader following the transcript (aci logs -f) shows that turn, question
// and all, when it reads it again.
func Settled(evs []Numbered) []Numbered {
	for i := len(evs) - 1; i >= 0; i-- {
		rec, _ := evs[i].Event.(Recorded)
		if t, ok := rec.Typed.(Turn); ok {
			if t.Question == "" {
				return evs[:i]
			}
			break
		}
	}
	return evs
}

// seedEvents makes a resumed session's stored events the first of its
// own, so a client reading its events from the start sees its past as it
// was, its turns are theirs, and ids carry on from them. It returns them.
func (s *Session) seedEvents(st agent.Session) []Numbered {
	evs := StoredEvents(st)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ev := range evs {
		s.events.main.add(ev)
		s.turnLog.add(ev.Event)
		s.events.last = max(s.events.last, ev.ID)
	}
	s.events.last = max(s.events.last, st.LastEventID)
	s.turnN = len(s.turnLog.turns)
	u, steps, cost := storedSpend(evs)
	s.usage = agent.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, CachedTokens: u.CachedTokens}
	s.steps, s.money.total = steps, cost
	return evs
}

// storedSpend is what a stored session's turns used and cost, summed from
// their results: a resumed session's Info (the page's header) counts the
// earlier runs too. A turn that made requests with no cost stored is one
// whose price was unknown.
func storedSpend(evs []Numbered) (u Usage, steps int, cost agent.Cost) {
	for _, e := range evs {
		r, _ := e.Event.(Recorded)
		res, ok := r.Typed.(Result)
		if !ok {
			continue
		}
		u.PromptTokens += res.Usage.PromptTokens
		u.CompletionTokens += res.Usage.CompletionTokens
		u.CachedTokens += res.Usage.CachedTokens
		steps += res.Steps
		switch {
		case res.Money.TurnKnown:
			cost.USD += res.Money.TurnUSD
		case res.Usage.PromptTokens+res.Usage.CompletionTokens > 0:
			cost.Unpriced++
		}
	}
	return u, steps, cost
}

// lastWindows gives each of wins the content of its last window event in
// evs: the window as it was when the session ended.
func lastWindows(evs []Numbered, wins []WindowInfo) {
	at := map[string]int{}
	for i, w := range wins {
		at[w.ID] = i
	}
	for _, e := range evs {
		r, _ := e.Event.(Recorded)
		w, ok := r.Typed.(Window)
		if !ok {
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

// maxRecordedOutput bounds an action's output in the transcript: a
// command's output is already cut for the model, but a diff is not.
const maxRecordedOutput = 32 << 10

// CutOutput bounds an action's output as the transcript keeps it: its
// start and its end, with a note of what was left out between.
func cutOutput(out string) string {
	if len(out) <= maxRecordedOutput {
		return out
	}
	head, tail := out[:maxRecordedOutput/2], out[len(out)-maxRecordedOutput/2:]
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8.ValidString(tail) {
		tail = tail[1:]
	}
	return head + "\n[… " + strconv.Itoa(len(out)-len(head)-len(tail)) + " bytes left out …]\n" + tail
}
