package windows

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/aci-dev/aci/tools/textfile"
)

// UndoJournal remembers, turn by turn, every file aci changed and how it
// was before the turn, so /undo can put it back. It is a Journal: a file
// window calls Record just before it writes. Putting files back is an
// effect on the machine, so it lives here, beside the windows that write.
type UndoJournal struct {
	mu    sync.Mutex
	turns []*turnChanges // finished turns that changed files, oldest first
	cur   *turnChanges   // the running turn's, nil until it changes a file
	next  int            // the question the running turn answers (BeginTurn), for /rewind
}

// fileSnapshot is a file's content and mode, or that it did not exist.
type fileSnapshot struct {
	exists bool
	data   []byte
	mode   fs.FileMode
}

// turnChanges are one turn's files: how each was before the turn, and
// how aci left it at the end of the turn.
type turnChanges struct {
	turn   int // the question it answered (0: not told)
	order  []string
	before map[string]fileSnapshot
	after  map[string]fileSnapshot
	// The workspace before the turn's first command and at its end, when
	// it is a git work tree: what commands changed is undone from these.
	tree, treeAfter worktreeSnapshot
	hasTree         bool
}

// NewUndoJournal makes an empty journal.
func NewUndoJournal() *UndoJournal { return &UndoJournal{} }

// Record snapshots path the first time the running turn changes it.
func (j *UndoJournal) Record(path string) {
	path = filepath.Clean(path)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cur == nil {
		j.cur = &turnChanges{turn: j.next, before: map[string]fileSnapshot{}}
	}
	if _, ok := j.cur.before[path]; ok {
		return
	}
	j.cur.before[path] = readState(path)
	j.cur.order = append(j.cur.order, path)
}

// BeforeCommand snapshots the workspace before the turn's first command.
func (j *UndoJournal) BeforeCommand(dir string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cur == nil {
		j.cur = &turnChanges{turn: j.next, before: map[string]fileSnapshot{}}
	}
	if j.cur.hasTree {
		return
	}
	j.cur.tree, j.cur.hasTree = snapshotWorktree(dir)
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
		j.cur.after[p] = readState(p)
	}
	if j.cur.hasTree {
		after, ok := snapshotWorktree(j.cur.tree.root)
		j.cur.treeAfter, j.cur.hasTree = after, ok && after.tree != j.cur.tree.tree
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
	return undoTurn(t), nil
}

// undoTurn puts back the files of one turn, leaving alone those changed
// since it ended.
func undoTurn(t *turnChanges) UndoResult {
	var res UndoResult
	handled := map[string]bool{}
	for _, p := range t.order {
		handled[p] = true
		before, after := t.before[p], t.after[p]
		if !readState(p).equal(after) {
			res.Refused = append(res.Refused, p)
			continue
		}
		if before.equal(after) {
			continue
		}
		if err := before.restore(p); err != nil {
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
		undoCommandChanges(t.tree, t.treeAfter, handled, &res)
	}
	return res
}

func readState(path string) fileSnapshot {
	fi, err := os.Stat(path)
	if err != nil {
		return fileSnapshot{}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fileSnapshot{exists: true, mode: fi.Mode().Perm()}
	}
	return fileSnapshot{exists: true, data: data, mode: fi.Mode().Perm()}
}

func (s fileSnapshot) equal(o fileSnapshot) bool {
	return s.exists == o.exists && s.mode == o.mode && bytes.Equal(s.data, o.data)
}

// restore makes path as s describes it.
func (s fileSnapshot) restore(path string) error {
	if !s.exists {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := textfile.WriteAtomic(path, s.data, s.mode); err != nil {
		return err
	}
	return os.Chmod(path, s.mode)
}
