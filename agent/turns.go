package agent

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// ActionInfo is one action a turn ran, as GET /api/sessions/{id} lists it:
// what was asked, how it ended and what it produced for the person.
type ActionInfo struct {
	CallID   string `json:"call_id"`
	WindowID string `json:"window_id"`
	ActionID string `json:"action_id"`
	Params   any    `json:"params"`
	// Title and Kind are the call as a person reads it (its description,
	// windows' table of calls): the page shows these, as it does live.
	Title  string `json:"title,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Status string `json:"status"`
	Output string `json:"output,omitempty"`
	// ExitCode is a command's exit status (from its tool_result event).
	ExitCode *int `json:"exit_code,omitempty"`
}

// maxRecordedOutput bounds an action's output in the transcript: a
// command's output is already cut for the model, but a diff is not.
const maxRecordedOutput = 32 << 10

// recordedOutput is what a transcript keeps of an action's output for the
// person, as the events show it, cut to a bound.
func recordedOutput(r windows.Result) string { return CutOutput(r.ForPerson()) }

// CutOutput bounds an action's output as the transcript keeps it: its
// start and its end, with a note of what was left out between.
func CutOutput(out string) string {
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

// addAction files a call's record under the turn it ran in.
func (s *Session) addAction(c CallRecord) {
	n := len(s.Turns)
	if n == 0 {
		return
	}
	s.Turns[n-1].Actions = append(s.Turns[n-1].Actions, ActionInfo{CallID: c.ID, WindowID: c.WindowID, ActionID: c.ActionID, Status: c.Status, Output: c.Output})
}

// addSteer files a message the person sent during a turn under it.
func (s *Session) addSteer(text string) {
	s.Shown = append(s.Shown, ShownItem{Kind: "steer", Text: text})
	if n := len(s.Turns); n > 0 {
		s.Turns[n-1].Steers = append(s.Turns[n-1].Steers, text)
	}
}

// fillParams gives each recorded action the parameters its call was made
// with, read from the replies (a call's record is written before the
// reply that made it is flushed).
func (s *Session) fillParams() {
	params := map[string]map[string]json.RawMessage{}
	for _, it := range s.Shown {
		if it.Call != nil {
			params[it.Call.ID] = it.Params
		}
	}
	for i := range s.Turns {
		for j := range s.Turns[i].Actions {
			a := &s.Turns[i].Actions[j]
			if p := params[a.CallID]; p != nil {
				a.Params = p
			} else {
				a.Params = map[string]any{}
			}
		}
	}
}

// shown adds what the person saw of a message: a question (a user message
// that is not a batch of results), or the prose and calls of a reply.
func (s *Session) shown(r Record, marked bool) {
	switch r.Role {
	case "user":
		if text, ok := SteerOf(r.Content); ok {
			s.addSteer(text)
			return
		}
		if !isQuestion(r.Role, r.Content) {
			return
		}
		if marked {
			// Only the question its turn record names: a nudge is not one.
			if s.asked >= len(s.Turns) {
				return
			}
			// The turn record holds no question (older ones did): it is
			// this message's text, stored once.
			if t := &s.Turns[s.asked]; t.Question == "" {
				t.Question = r.Content
			}
		} else {
			s.Turns = append(s.Turns, TurnInfo{Index: len(s.Turns) + 1, Question: r.Content})
		}
		if s.Questions == 0 {
			s.First = r.Content
		}
		s.Questions++
		s.asked++
		s.fillTurnEvent(r.Content)
		s.Shown = append(s.Shown, ShownItem{Kind: "question", Text: r.Content})
	case "assistant":
		p := protocol.Parse(r.Content, r.Turn)
		if t := strings.TrimSpace(p.Text); t != "" {
			s.Shown = append(s.Shown, ShownItem{Kind: "answer", Text: t})
			if n := len(s.Turns); !marked && n > 0 && !p.HasCalls() {
				s.Turns[n-1].Answer = t
			}
		}
		for _, c := range p.Calls {
			s.Shown = append(s.Shown, ShownItem{Kind: "call", Call: &CallRecord{ID: c.ID, WindowID: c.WindowID, ActionID: c.ActionID}, Params: c.Params})
		}
	}
}
