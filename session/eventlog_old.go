package session

import (
	"strings"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// Transcripts an older aci wrote are read here, and nowhere else.

// oldOutcome is the outcome of a result stored before results carried
// one: the error's text said "interrupted" then.
func oldOutcome(isError bool, errText string) Outcome {
	switch {
	case !isError:
		return Answered
	case errText == "interrupted":
		return Interrupted
	}
	return Failed
}

// typedOf is a question as an older aci stored it (the message the model
// got) as the person typed it: without the notes aci put before it (a
// permission mode, what /undo or !cmd did) or the list of files its
// @mentions opened.
func typedOf(q string) string {
	for strings.HasPrefix(q, "[aci: ") {
		_, rest, ok := strings.Cut(q, "\n")
		if !ok {
			break
		}
		q = rest
	}
	q = strings.TrimLeft(q, "\n")
	if i := strings.LastIndex(q, "\n\nFiles referenced: "); i >= 0 && !strings.Contains(q[i+2:], "\n") {
		q = q[:i]
	}
	return q
}

// oldEvents gives a transcript written before event records the events
// its records tell: each question's turn, the model's words, each call
// with how it ended, the steered messages and a result per turn. What old
// transcripts never kept (approvals, per-turn figures, cancel marks,
// window contents) stays unknown.
func oldEvents(st agent.Session) []Numbered {
	calls := map[string]agent.CallRecord{} // written when a call ends, before its reply
	for _, r := range st.Legacy {
		if r.Type == "call" && r.Call != nil {
			calls[r.Call.ID] = *r.Call
		}
	}
	var out []Numbered
	add := func(e Event) {
		data, err := Encode(e)
		if err != nil {
			return
		}
		out = append(out, Numbered{ID: int64(len(out) + 1), Event: Recorded{Kind: e.Type(), Data: data, Typed: e}})
	}
	turn, waiting, marked, open, answer := 0, 0, false, false, ""
	end := func() {
		if !open {
			return
		}
		open = false
		r := Result{Outcome: Answered, Answer: answer, SessionID: st.ID}
		if answer == "" {
			// Cancelled or failed: which, old transcripts did not keep.
			r.Outcome, r.Error = Failed, "no answer recorded"
		}
		add(r)
	}
	for _, r := range st.Legacy {
		switch r.Type {
		case "turn":
			marked = true
			waiting++
		case "answer":
			answer = r.Content
		case "reset":
			end()
			turn, waiting = 0, 0
		case "message":
			if r.Role == "assistant" {
				p := protocol.Parse(r.Content, r.Turn)
				if t := strings.TrimSpace(p.Text); t != "" {
					add(Text{Text: t})
					if !marked && !p.HasCalls() {
						answer = t
					}
				}
				for _, c := range p.Calls {
					rec := calls[c.ID]
					add(ToolCall{Call: protocol.Call{ID: c.ID, WindowID: c.WindowID, ActionID: c.ActionID, Params: c.Params}})
					add(ToolResult{Call: protocol.Call{ID: c.ID}, Result: protocol.Result{Status: rec.Status}, Detail: windows.Result{Output: rec.Output}})
				}
				continue
			}
			if text, ok := agent.SteerOf(r.Content); ok {
				add(Steer{Turn: turn, Text: text})
				continue
			}
			if !agent.IsQuestion(r.Role, r.Content) || marked && waiting == 0 {
				continue // results, hints, or a nudge no turn record names
			}
			if marked {
				waiting--
			}
			end()
			turn++
			open, answer = true, ""
			add(Turn{Turn: turn, Question: typedOf(r.Content)})
		}
	}
	end()
	return out
}
