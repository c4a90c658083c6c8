package windows

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/aci-dev/aci/tools/textfile"
)

// UndoJournal remembers, turn by turn, every file aci changed and how it
// was before the turn, so /undo can put it back. It is a Journal: a file
// window calls Record just before it writes. Putting files back is an
// effect on the machine, so it lives here, beside the windows that write.
type UndoJournal struct {
	mu sync.Mutex
	// ws is the workspace, as it was when the session began: restores
	// below it are resolved beneath it, following no link (undo_beneath.go).
	ws textfile.Anchor
	// wrote are the identities of the files undo and rewind wrote back:
	// a later undo of an earlier turn finds them as its own.
	wrote map[string]textfile.Ident
	turns []*turnChanges // finished turns that changed files, oldest first
	cur   *turnChanges   // the running turn's, nil until it changes a file
	next  int            // the question the running turn answers (BeginTurn), for /rewind
}

// fileSnapshot is a file's content, mode and identity, or that it did
// not exist.
type fileSnapshot struct {
	exists bool
	data   []byte
	mode   fs.FileMode
	ident  textfile.Ident
}

// turnChanges are one turn's files: how each was before the turn, and
// how aci left it at the end of the turn.
type turnChanges struct {
	turn   int // the question it answered (0: not told)
	order  []string
	before map[string]fileSnapshot
	after  map[string]fileSnapshot
	// at is where each path was when recorded: the anchor it is put back
	// beneath and its real path there.
	at map[string]place
	// The workspace before the turn's first command and at its end, when
	// it is a git work tree: what commands changed is undone from these.
	tree, treeAfter worktreeSnapshot
	hasTree         bool
	// treeAt anchors the commands' changes; treeIdents are the identities
	// of the files they left, at the end of the turn.
	treeAt     textfile.Anchor
	treeIdents map[string]textfile.Ident
}

// NewUndoJournal makes an empty journal.
func NewUndoJournal() *UndoJournal { return &UndoJournal{} }

// Record snapshots path the first time the running turn changes it.
func (j *UndoJournal) Record(path string) {
	path = filepath.Clean(path)
	j.mu.Lock()
	defer j.mu.Unlock()
	j.curLocked()
	if _, ok := j.cur.before[path]; ok {
		return
	}
	at := j.placeOf(path)
	j.cur.at[path] = at
	j.cur.before[path] = at.read()
	j.cur.order = append(j.cur.order, path)
}

// BeforeCommand snapshots the workspace before the turn's first command.
func (j *UndoJournal) BeforeCommand(dir string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.curLocked()
	if j.cur.hasTree {
		return
	}
	j.cur.tree, j.cur.hasTree = snapshotWorktree(dir)
	if j.cur.hasTree {
		j.cur.treeAt = j.anchorOf(j.cur.tree.root)
	}
}

// EndTurn closes the running turn: the files as they are now are what aci
// left, which /undo checks nobody changed since.
func (j *UndoJournal) EndTurn() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cur == nil {
		return
	}
	j.cur.after = map[string]fileSnapshot{}
	for _, p := range j.cur.order {
		j.cur.after[p] = j.cur.at[p].read()
	}
	if j.cur.hasTree {
		after, ok := snapshotWorktree(j.cur.tree.root)
		j.cur.treeAfter, j.cur.hasTree = after, ok && after.tree != j.cur.tree.tree
		if j.cur.hasTree {
			j.cur.treeIdents = treeIdents(j.cur.treeAt, j.cur.tree, after)
		}
	}
	if len(j.cur.order) > 0 || j.cur.hasTree {
		j.turns = append(j.turns, j.cur)
	}
	j.cur = nil
}

// Forget drops every turn (after /reset nothing refers to them).
func (j *UndoJournal) Forget() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.turns, j.cur = nil, nil
}

// UndoResult says what /undo did.
type UndoResult struct {
	Restored []string // put back as they were
	Removed  []string // created by the turn, removed
	Refused  []string // changed since by someone else, left alone
	Failed   []string // could not be put back: "path: why"
}

// ErrNothingToUndo is /undo with no turn that changed a file.
var ErrNothingToUndo = errors.New("nothing to undo: no earlier turn of this session changed a file")

// Undo puts back the files of the last turn that changed any, and forgets
// that turn: the next Undo goes one turn further back.
func (j *UndoJournal) Undo() (UndoResult, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.turns) == 0 {
		return UndoResult{}, ErrNothingToUndo
	}
	t := j.turns[len(j.turns)-1]
	j.turns = j.turns[:len(j.turns)-1]
	return undoTurn(t, j.wroteLocked()), nil
}

// undoTurn puts back the files of one turn, leaving alone those changed
// since it ended (content, mode or identity: a file replaced by another
// of the same content is someone else's). wrote are the identities of the
// files this undo or rewind wrote already: those are its own.
func undoTurn(t *turnChanges, wrote map[string]textfile.Ident) UndoResult {
	var res UndoResult
	handled := map[string]bool{}
	for _, p := range t.order {
		handled[p] = true
		before, after, at := t.before[p], t.after[p], t.at[p]
		slot, err := at.open(before.exists)
		if err != nil && !before.exists && errors.Is(err, fs.ErrNotExist) {
			if after.exists { // its folder went away since
				res.Refused = append(res.Refused, p)
			}
			continue
		}
		if err != nil {
			res.Failed = append(res.Failed, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		now := snapshotOf(slot)
		if !now.equal(after) || !now.same(after, wrote[at.real]) {
			slot.Close()
			res.Refused = append(res.Refused, p)
			continue
		}
		if before.equal(after) {
			slot.Close()
			continue
		}
		err = before.restore(slot, at.real, wrote)
		slot.Close()
		if err != nil {
			res.Failed = append(res.Failed, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		if before.exists {
			res.Restored = append(res.Restored, p)
		} else {
			res.Removed = append(res.Removed, p)
		}
	}
	if t.hasTree {
		undoCommandChanges(t, handled, wrote, &res)
	}
	return res
}

func (s fileSnapshot) equal(o fileSnapshot) bool {
	return s.exists == o.exists && s.mode == o.mode && bytes.Equal(s.data, o.data)
}

// same says whether s is the very file o was (or the one this undo wrote,
// ours): identity, not only content.
func (s fileSnapshot) same(o fileSnapshot, ours textfile.Ident) bool {
	return !s.exists || s.ident == o.ident || (ours != textfile.Ident{} && s.ident == ours)
}

// restore makes the slot as s describes it, and notes what it wrote.
func (s fileSnapshot) restore(slot *textfile.Slot, real string, wrote map[string]textfile.Ident) error {
	if !s.exists {
		delete(wrote, real)
		return slot.Remove()
	}
	id, err := slot.Write(s.data, s.mode)
	if err == nil {
		wrote[real] = id
	}
	return err
}
