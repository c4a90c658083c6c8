package session

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aci-dev/aci/agent"
)

// Export is a session's transcript as a readable document (docs/protocol.md §9
// "The session's changes"): each question, the model's words, its actions
// with their diffs and outputs, the person's decisions, each answer and
// what it cost. It is built from the event log alone (the transcript is
// the event log, eventlog.go), so any stored session exports, loaded or
// not. redact removes the secrets this process knows from every text
// once more: the log was redacted as it was written, but by that
// process's secret set.

// ExportFormats are the formats Export writes.
var ExportFormats = map[string]string{"md": "text/markdown; charset=utf-8", "html": "text/html; charset=utf-8"}

// exportItem is one thing that happened in a turn, in order.
type exportItem struct {
	kind     string // text, steer, action, decision
	text     string // words; an action's title; a decision's words
	status   string
	output   string
	exitCode *int
}

type exportTurn struct {
	n        int
	question string
	items    []exportItem
	answer   string
	failed   string
	cost     *float64
	usage    Usage
}

type exportDoc struct {
	id, model, parent string
	turns             []exportTurn
}

// Export writes stored session st in format ("md" or "html").
func Export(st agent.Session, format string, redact func(string) string) ([]byte, error) {
	if _, ok := ExportFormats[format]; !ok {
		return nil, fmt.Errorf("unknown export format %q: md or html", format)
	}
	if redact == nil {
		redact = func(s string) string { return s }
	}
	d := readExport(st, redact)
	if format == "html" {
		return []byte(d.html()), nil
	}
	return []byte(d.markdown()), nil
}

// readExport walks the event log. A turn event numbered n drops the turns
// from n on, as TurnsOf does: after a /reset or a rewind the numbers start
// again, and the document tells the conversation as it stands.
func readExport(st agent.Session, redact func(string) string) exportDoc {
	doc := exportDoc{id: st.ID, model: st.Model, parent: st.Parent}
	calls := map[string]int{}    // call id → item index in the last turn
	asked := map[string]string{} // approval request id → what was asked
	// StoredEvents gives each turn its question back (and reads an older
	// transcript's records).
	for _, n := range StoredEvents(st) {
		e, ok := n.Event.(Recorded)
		if !ok {
			continue
		}
		var d struct {
			Turn      int             `json:"turn"`
			Question  string          `json:"question"`
			Text      string          `json:"text"`
			CallID    string          `json:"call_id"`
			WindowID  string          `json:"window_id"`
			ActionID  string          `json:"action_id"`
			Params    json.RawMessage `json:"params"`
			Title     string          `json:"title"`
			Status    string          `json:"status"`
			Output    string          `json:"output"`
			ExitCode  *int            `json:"exit_code"`
			IsError   bool            `json:"is_error"`
			Result    string          `json:"result"`
			Error     string          `json:"error"`
			Usage     Usage           `json:"usage"`
			Cost      *float64        `json:"total_cost_usd"`
			RequestID string          `json:"request_id"`
			Decision  string          `json:"decision"`
			By        string          `json:"by"`
			Reason    string          `json:"reason"`
		}
		if json.Unmarshal(e.Data, &d) != nil {
			continue
		}
		if e.Kind == "turn" {
			doc.turns = append(doc.turns[:min(max(d.Turn-1, 0), len(doc.turns))], exportTurn{n: d.Turn, question: redact(d.Question)})
			calls = map[string]int{}
			continue
		}
		if len(doc.turns) == 0 {
			continue
		}
		t := &doc.turns[len(doc.turns)-1]
		switch e.Kind {
		case "text":
			if n := len(t.items); n > 0 && t.items[n-1].kind == "text" {
				t.items[n-1].text += d.Text // streamed words join; redacted whole below
				continue
			}
			t.items = append(t.items, exportItem{kind: "text", text: d.Text})
		case "steer":
			t.items = append(t.items, exportItem{kind: "steer", text: redact(d.Text)})
		case "tool_call":
			title := d.Title
			if title == "" {
				title = d.WindowID + "." + d.ActionID + " " + string(d.Params)
			}
			calls[d.CallID] = len(t.items)
			t.items = append(t.items, exportItem{kind: "action", text: redact(title)})
		case "tool_result":
			if i, ok := calls[d.CallID]; ok {
				it := &t.items[i]
				it.status, it.output, it.exitCode = d.Status, redact(d.Output), d.ExitCode
				if it.output == "" && d.Status != "ok" {
					it.output = redact(d.Text)
				}
			}
		case "approval":
			q := d.Title
			if q == "" {
				q = d.WindowID + "." + d.ActionID
			}
			if d.Reason != "" {
				q += " (" + d.Reason + ")"
			}
			asked[d.RequestID] = redact(q)
		case "decision":
			words := d.Decision
			if d.By != "" {
				words += " by " + d.By
			}
			if q := asked[d.RequestID]; q != "" {
				words += ": " + q
			}
			t.items = append(t.items, exportItem{kind: "decision", text: words})
		case "result":
			t.usage, t.cost = d.Usage, d.Cost
			if d.IsError {
				t.failed = redact(d.Error)
			} else {
				t.answer = redact(d.Result)
				// The answer's words were streamed as text: said once.
				if n := len(t.items); n > 0 && t.items[n-1].kind == "text" && strings.TrimSpace(t.items[n-1].text) == strings.TrimSpace(d.Result) {
					t.items = t.items[:n-1]
				}
			}
		}
	}
	// A secret split across streamed pieces is whole only once they join.
	for i := range doc.turns {
		for k := range doc.turns[i].items {
			if it := &doc.turns[i].items[k]; it.kind == "text" {
				it.text = redact(it.text)
			}
		}
	}
	return doc
}

// total is the whole session's cost and tokens; known is false when no
// turn's price was known.
func (d exportDoc) total() (cost float64, known bool, u Usage) {
	for _, t := range d.turns {
		if t.cost != nil {
			cost, known = cost+*t.cost, true
		}
		u.PromptTokens += t.usage.PromptTokens
		u.CompletionTokens += t.usage.CompletionTokens
		u.CachedTokens += t.usage.CachedTokens
	}
	return cost, known, u
}

func costLine(cost float64, known bool, u Usage) string {
	s := fmt.Sprintf("%d tokens in (%d cached), %d out", u.PromptTokens, u.CachedTokens, u.CompletionTokens)
	if known {
		s = fmt.Sprintf("$%.4f · ", cost) + s
	}
	return s
}

func (it exportItem) statusWords() string {
	s := it.status
	if it.exitCode != nil {
		s += fmt.Sprintf(", exit %d", *it.exitCode)
	}
	return strings.TrimPrefix(s, ", ")
}

// isDiff says whether an action's output begins with a unified diff.
func isDiff(out string) bool {
	return strings.HasPrefix(out, "--- ") || strings.HasPrefix(out, "diff ")
}
