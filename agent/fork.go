package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aci-dev/aci/transcript"
)

// ErrNoSuchTurn is a fork point past the turns a session has finished.
var ErrNoSuchTurn = errors.New("no such turn")

// ForkTranscript starts a branch of the session at parentPath: a new
// transcript in dir whose records are the parent's up to the start of its
// turn+1 (so replaying it gives the conversation after turn turns, and the
// windows open then), under a meta record naming the parent. The parent's
// file is only read: a branch shares nothing mutable with it.
func ForkTranscript(dir, parentPath string, turn int, secret string) (*transcript.File, Session, error) {
	if turn < 1 {
		return nil, Session{}, fmt.Errorf("%w: turns count from 1, got %d", ErrNoSuchTurn, turn)
	}
	return forkTranscript(dir, parentPath, turn, secret)
}

// forkTranscript is ForkTranscript for any turn from 0 (a branch that
// keeps no turn: /rewind to the first question).
func forkTranscript(dir, parentPath string, turn int, secret string) (*transcript.File, Session, error) {
	parent, workdir, err := replay(parentPath)
	if err != nil {
		return nil, Session{}, fmt.Errorf("read the session to fork: %w", err)
	}
	if done := finishedTurns(parent); turn > done {
		return nil, Session{}, fmt.Errorf("%w: session %s has %d finished turns, cannot fork at turn %d", ErrNoSuchTurn, parent.ID, done, turn)
	}
	records, err := recordsBefore(parentPath, turn+1)
	if err != nil {
		return nil, Session{}, err
	}
	t, err := transcript.New(dir, transcript.Meta{Workdir: workdir, Model: parent.Model, Parent: parent.ID, FromTurn: turn}, secret)
	if err != nil {
		return nil, Session{}, err
	}
	for _, line := range records {
		// As written: the records the branch keeps are the parent's.
		if err := t.WriteLine(line); err != nil {
			t.Close()
			os.Remove(t.Path)
			return nil, Session{}, err
		}
	}
	if len(records) == 0 {
		// A branch that keeps no record still exists: --sessions lists it.
		if err := t.Create(); err != nil {
			return nil, Session{}, err
		}
	}
	s, _, err := replay(t.Path)
	if err != nil {
		t.Close()
		return nil, Session{}, fmt.Errorf("read the new branch: %w", err)
	}
	return t, s, nil
}

// finishedTurns counts the turns of s that have ended: all but a last one
// still running (one without an answer and with no later record) count.
func finishedTurns(s Session) int { return len(s.Asked) }

// recordsBefore returns the raw lines of the transcript at path after its
// meta record and before the record that starts turn n (its turn event,
// or its turn record in one an older aci wrote, or in older ones still the
// n-th question message: turnStarts).
func recordsBefore(path string, n int) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	var out [][]byte
	turns, questions := 0, 0
	var starts turnStarts
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.Clone(sc.Bytes())
		var r Record
		if json.Unmarshal(line, &r) != nil || r.Type == "meta" {
			continue
		}
		marked := starts.marked
		start := false
		switch r.Type {
		case "turn":
			start = starts.record(r)
		case "event":
			start = starts.event(transcript.EventType(r.Event), r.Event)
		case "reset":
			turns, questions = 0, 0 // replay forgets what came before
			starts.reset()
		case "message":
			if !marked && r.Role == "user" && !strings.HasPrefix(strings.TrimSpace(r.Content), "<tool_results>") {
				if questions++; questions == n {
					return out, nil
				}
			}
		}
		if start {
			if !marked {
				// A transcript begun before turns were marked: go on counting.
				turns = questions
			}
			if turns++; turns == n {
				return out, nil
			}
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return out, nil
}

// turnStarts tells where a transcript's turns start: at a turn event, or
// in one an older aci wrote, at the turn record before it (the event with
// the record's number then starts nothing). marked: a turn was marked
// (a transcript older still marks none: each question starts one).
type turnStarts struct {
	pending int // the number of the last turn record not yet followed by its event
	marked  bool
}

// record takes a turn record: it starts a turn.
func (t *turnStarts) record(r Record) bool {
	t.pending, t.marked = r.Turn, true
	return true
}

// event takes an event record of type typ: a turn event starts a turn
// unless it follows its turn record.
func (t *turnStarts) event(typ string, data []byte) bool {
	if typ != "turn" {
		return false
	}
	pending := t.pending
	t.pending, t.marked = 0, true
	if pending == 0 {
		return true // as aci writes now: no turn record before it
	}
	var ev struct {
		Turn int `json:"turn"`
	}
	json.Unmarshal(data, &ev)
	return ev.Turn != pending
}

// reset takes a reset record: turns are numbered again after it.
func (t *turnStarts) reset() { t.pending = 0 }
