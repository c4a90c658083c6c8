package agent

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"sync"

	"github.com/aci-dev/aci/windows"
)

// A turn is one question of the person and everything until the next
// one. A fork starts a new session from a conversation's first N turns.

// mark is where a question still in the history begins.
type mark struct {
	question int                     // its number, from 1 since the last reset
	at       int                     // its entry in the history
	turn     int                     // model replies before it
	windows  []windows.WindowState   // the windows open when it was asked
	views    map[string]windows.View // what the model knew of them then (rewind.go); nil when restored
}

// IsQuestion reports whether a message is a question of the person: a
// user message that is neither a batch of results, nor a hint aci wrote to
// the model, nor the note that opens a compressed history.
func IsQuestion(role, text string) bool {
	if role != "user" {
		return false
	}
	t := strings.TrimSpace(text)
	_, steer := SteerOf(text)
	return !steer && !strings.HasPrefix(t, "<tool_results>") && !strings.HasPrefix(t, "<system_hint>") && t != compressedNote
}

// Fork copies the conversation's first turns turns into a session that
// Agent.Restore (or Resume, which also reopens its windows) continues: the
// history up to the next question, the summary, the reply count and the
// windows open at that point. A compression folds the turns it summarises
// into one: a fork cannot split them, and says so. A rebase keeps turns
// apart (it only drops renderings, and a fork's windows are shown afresh).
// Call it between turns, from the goroutine that runs them.
func (c *Conversation) Fork(turns int) (Session, error) {
	switch {
	case c.questions == 0:
		return Session{}, fmt.Errorf("fork: the conversation has no turn yet")
	case turns < 1 || turns > c.questions:
		return Session{}, fmt.Errorf("fork: no turn %d: the conversation has turns 1 to %d", turns, c.questions)
	case turns < c.folded:
		return Session{}, fmt.Errorf("fork: turns 1 to %d were compressed into one summary and cannot be split; fork from turn %d or later", c.folded, c.folded)
	}
	at, turn, open := len(c.history), c.turn, c.wm.Snapshot()
	if turns < c.questions {
		m, ok := c.markOf(turns + 1)
		if !ok {
			return Session{}, fmt.Errorf("fork: where turn %d begins is no longer known (the history was compressed)", turns+1)
		}
		at, turn, open = m.at, m.turn, m.windows
	}
	s := Session{History: cloneEntries(c.history[:at]), Summary: c.cfg.Hints.Summary, Turn: turn, Windows: open,
		LastRequest: c.cache.lastUse} // the fork's prefix is the parent's, cached as much
	for _, e := range s.History {
		s.question(Record{Role: e.Role, Content: e.Text}, false)
	}
	s.Questions = turns
	return s, nil
}

func (c *Conversation) markOf(question int) (mark, bool) {
	for _, m := range c.marks {
		if m.question == question {
			return m, true
		}
	}
	return mark{}, false
}

// restoreMarks finds the questions of a restored history, questions being
// how many the session asked in all. A session with a summary folded the
// questions before its history, and the first one in it if the history
// starts with it (a compression between turns keeps the question).
func (c *Conversation) restoreMarks(questions int) {
	var at []int
	for i, e := range c.history {
		if IsQuestion(e.Role, e.Text) {
			at = append(at, i)
		}
	}
	c.questions = max(questions, len(at))
	c.folded = c.questions - len(at)
	if c.cfg.Hints.Summary != "" && len(at) > 0 && at[0] == 0 {
		c.folded++
	}
	c.marks = nil
	for k, i := range at {
		c.marks = append(c.marks, mark{question: c.questions - len(at) + k + 1, at: i, turn: c.turn, windows: windowsIn(c.history[:i])})
	}
}

// windowHeader reads a rendering's first line.
var windowHeader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^<window id="([^"]*)"(?: app="([^"]*)" title="([^"]*)")?([^>]*)>`)
})

// windowsIn lists the windows a history shows open at its end, from its
// renderings: what a restored session knows of the windows at an earlier
// turn. A window whose renderings a later rebase dropped is not in it.
func windowsIn(history []entry) []windows.WindowState {
	var order []string
	open := map[string]windows.WindowState{}
	for _, e := range history {
		for _, el := range e.Elements {
			m := windowHeader().FindStringSubmatch(el.Text)
			if m == nil || m[1] == "launcher" {
				continue
			}
			id := html.UnescapeString(m[1])
			if strings.Contains(m[4], `closed="true"`) {
				delete(open, id)
				continue
			}
			if m[2] == "" {
				continue
			}
			if _, ok := open[id]; !ok {
				order = append(order, id)
			}
			open[id] = windows.WindowState{ID: id, App: html.UnescapeString(m[2]), Target: html.UnescapeString(m[3])}
		}
	}
	var out []windows.WindowState
	seen := map[string]bool{}
	for _, id := range order {
		if st, ok := open[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, st)
		}
	}
	return out
}
