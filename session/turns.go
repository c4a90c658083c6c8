package session

import "github.com/aci-dev/aci/agent"

// TurnInfo is one question as the person typed it and its final answer
// ("" while unanswered, or when the turn did not answer), with the actions
// it ran and the messages the person added while it ran (GET
// /api/sessions/{id}).
type TurnInfo struct {
	Index    int          `json:"index"`
	Question string       `json:"question"`
	Answer   string       `json:"answer"`
	Actions  []ActionInfo `json:"actions"`
	Steers   []string     `json:"steers"`
}

// ActionInfo is one action a turn ran: what was asked, how it ended and
// what it produced for the person.
type ActionInfo struct {
	CallID   string `json:"call_id"`
	WindowID string `json:"window_id"`
	ActionID string `json:"action_id"`
	Params   any    `json:"params"`
	// Title and Kind are the call as a person reads it (its one
	// description): the page shows these, as it does live.
	Title  string `json:"title,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Status string `json:"status"`
	Output string `json:"output,omitempty"`
	// ExitCode is a command's exit status (from its tool_result event).
	ExitCode *int `json:"exit_code,omitempty"`
}

// turnLog folds a session's events into its turns: the one way turns are
// derived, from a live session's events as they are published and from a
// stored one's as they are read back. A turn event numbered n drops the
// turns from n on: after a /reset or a rewind the numbers start again.
type turnLog struct {
	turns []TurnInfo
	at    map[string]int // call id → index in the last turn's actions
}

func (l *turnLog) add(ev Event) {
	if r, ok := ev.(Recorded); ok {
		ev = r.Typed
	}
	if t, ok := ev.(Turn); ok {
		l.turns = append(l.turns[:min(max(t.Turn-1, 0), len(l.turns))], TurnInfo{Index: t.Turn, Question: t.Question})
		l.at = map[string]int{}
		return
	}
	if len(l.turns) == 0 {
		return
	}
	t := &l.turns[len(l.turns)-1]
	switch e := ev.(type) {
	case ToolCall:
		params := any(e.Call.Params)
		if e.Call.Params == nil {
			params = map[string]any{}
		}
		l.at[e.Call.ID] = len(t.Actions)
		d := e.Described("")
		t.Actions = append(t.Actions, ActionInfo{CallID: e.Call.ID, WindowID: e.Call.WindowID, ActionID: e.Call.ActionID, Params: params,
			Title: d.Title, Kind: d.Kind})
	case ToolResult:
		if i, ok := l.at[e.Call.ID]; ok {
			a := &t.Actions[i]
			a.Status, a.Output, a.ExitCode = e.Result.Status, cutOutput(PersonOutput(e.Detail)), e.Detail.ExitCode
		}
	case Steer:
		t.Steers = append(t.Steers, e.Text)
	case Result:
		if e.Outcome == Answered {
			t.Answer = e.Answer
		}
	}
}

// list is the turns with every list present (empty, not null, on the
// wire), shared with no one.
func (l *turnLog) list() []TurnInfo {
	out := make([]TurnInfo, len(l.turns))
	for i, t := range l.turns {
		t.Actions = append([]ActionInfo{}, t.Actions...)
		t.Steers = append([]string{}, t.Steers...)
		out[i] = t
	}
	return out
}

// TurnsOf is the turns a session's events tell.
func TurnsOf(evs []Numbered) []TurnInfo {
	var l turnLog
	for _, e := range evs {
		l.add(e.Event)
	}
	return l.list()
}

// StoredTurns is the turns of a stored session, from its events.
func StoredTurns(st agent.Session) []TurnInfo { return TurnsOf(StoredEvents(st)) }
