package windows

import (
	"errors"
	"strings"
)

// BeginTurn tells the journal which question the running turn answers
// (the session's turn number, counted from 1), so /rewind can find the
// changes of every turn from one question on.
func (j *UndoJournal) BeginTurn(question int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.next = question
	if j.cur != nil {
		j.cur.turn = question // changed before the turn began (a !command)
	}
}

// ErrNothingToRewind is a rewind of files no turn of this process changed.
var ErrNothingToRewind = errors.New("no file changes are recorded for those turns (they ran in another aci process, or changed no file)")

// RewindTo puts every file back as it was before question n: the turns
// that answered n and later questions are undone newest first, each as
// /undo does it, so a file someone else changed since is left alone and
// named. They are forgotten afterwards. A path refused or failed in one
// turn is named once.
func (j *UndoJournal) RewindTo(n int) (UndoResult, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	k := j.firstFrom(n)
	if k == len(j.turns) {
		return UndoResult{}, ErrNothingToRewind
	}
	var each []UndoResult
	wrote := j.wroteLocked()
	for i := len(j.turns) - 1; i >= k; i-- {
		each = append(each, undoTurn(j.turns[i], wrote))
	}
	j.turns = j.turns[:k]
	return settled(each), nil
}

// DropFrom forgets the changes of question n and later without touching
// the files: the conversation went back before them but the files stay,
// and a later /undo or /rewind must not reach past what the model knows.
func (j *UndoJournal) DropFrom(n int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.turns = j.turns[:j.firstFrom(n)]
}

// firstFrom is the index of the first recorded turn answering question n
// or a later one. Turns are recorded in order, so the rest follow it.
func (j *UndoJournal) firstFrom(n int) int {
	for i, t := range j.turns {
		if t.turn >= n {
			return i
		}
	}
	return len(j.turns)
}

// settled names each path once, by what happened to it last: the undo
// of the earliest turn is the one that decides how the file is now.
func settled(each []UndoResult) UndoResult {
	type outcome struct {
		kind int
		text string
	}
	last := map[string]outcome{}
	var order []string
	note := func(kind int, key, text string) {
		if _, ok := last[key]; !ok {
			order = append(order, key)
		}
		last[key] = outcome{kind, text}
	}
	for _, u := range each {
		for _, p := range u.Restored {
			note(0, p, p)
		}
		for _, p := range u.Removed {
			note(1, p, p)
		}
		for _, p := range u.Refused {
			note(2, p, p)
		}
		for _, f := range u.Failed {
			key, _, _ := strings.Cut(f, ": ")
			note(3, key, f)
		}
	}
	var out UndoResult
	for _, key := range order {
		o := last[key]
		switch o.kind {
		case 0:
			out.Restored = append(out.Restored, o.text)
		case 1:
			out.Removed = append(out.Removed, o.text)
		case 2:
			out.Refused = append(out.Refused, o.text)
		default:
			out.Failed = append(out.Failed, o.text)
		}
	}
	return out
}
