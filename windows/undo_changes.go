package windows

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/aymanbagabas/go-udiff"
)

// The session's changes (docs/protocol.md §9 "The session's changes"): every
// file the recorded turns changed, by file windows and by commands, each
// as it was before the first turn that touched it and as it is now.

// SessionChange is one file the session changed.
type SessionChange struct {
	Path   string // absolute
	Status string // "added", "modified" or "deleted"
	Before []byte // before the session's first turn that changed it
	After  []byte // now
}

// Binary says whether either side is not text (a NUL byte), which is
// named rather than shown as a diff.
func (c SessionChange) Binary() bool {
	return bytes.IndexByte(c.Before, 0) >= 0 || bytes.IndexByte(c.After, 0) >= 0
}

// fileHistory is one path across the recorded turns: how it was before
// the first turn that changed it, and how aci left it at the end of the
// last one.
type fileHistory struct {
	first, last fileSnapshot
	at          place // where it is read and put back, beneath its anchor
}

// history walks the finished turns oldest first. Paths come in the order
// they were first changed. A turn's commands are read from its git
// snapshots; a path a file window recorded in that turn is taken from the
// window's own record.
func (j *UndoJournal) history() (map[string]*fileHistory, []string) {
	h := map[string]*fileHistory{}
	var order []string
	note := func(p string, at place, before, after fileSnapshot) {
		e, ok := h[p]
		if !ok {
			e = &fileHistory{first: before, at: at}
			h[p] = e
			order = append(order, p)
		}
		e.last = after
	}
	for _, t := range j.turns {
		for _, p := range t.order {
			note(p, t.at[p], t.before[p], t.after[p])
		}
		if !t.hasTree {
			continue
		}
		changes, err := changesBetween(t.tree, t.treeAfter)
		if err != nil {
			continue // that turn's commands stay unlisted, as /undo would fail them
		}
		for _, c := range changes {
			if _, ok := t.before[c.path]; ok {
				continue
			}
			note(c.path, place{anchor: t.treeAt, real: c.path}, blobState(t.tree.root, c.before, c.mode), blobState(t.treeAfter.root, c.after, c.mode))
		}
	}
	return h, order
}

// blobState is a snapshot read from a git blob ("" : the file did not exist).
func blobState(root, id string, mode os.FileMode) fileSnapshot {
	if id == "" {
		return fileSnapshot{}
	}
	data, err := blob(root, id)
	if err != nil {
		return fileSnapshot{exists: true, mode: mode}
	}
	return fileSnapshot{exists: true, data: data, mode: mode}
}

// Changes lists every file the recorded turns changed whose content is not
// as it was before them (a file put back, by /undo, a rewind or a person,
// is not listed), in the order the session first changed them.
func (j *UndoJournal) Changes() []SessionChange {
	j.mu.Lock()
	h, order := j.history()
	j.mu.Unlock()
	var out []SessionChange
	for _, p := range order {
		first, now := h[p].first, h[p].at.read()
		if sameContent(first, now) {
			continue
		}
		c := SessionChange{Path: p, Status: "modified", Before: first.data, After: now.data}
		switch {
		case !first.exists:
			c.Status = "added"
		case !now.exists:
			c.Status = "deleted"
		}
		out = append(out, c)
	}
	return out
}

// ErrNotChanged is a revert of a path the session did not change.
var ErrNotChanged = errors.New("this session did not change that file")

// RevertFile puts path back as it was before the session's first turn
// that changed it. A file changed since aci last left it (by the person,
// another program) is not overwritten: it is Refused.
func (j *UndoJournal) RevertFile(path string) (UndoResult, error) {
	path = filepath.Clean(path)
	j.mu.Lock()
	defer j.mu.Unlock()
	h, _ := j.history()
	e, ok := h[path]
	if !ok {
		return UndoResult{}, fmt.Errorf("%w: %s", ErrNotChanged, path)
	}
	var res UndoResult
	slot, err := e.at.open(e.first.exists)
	if err != nil && !e.first.exists && errors.Is(err, fs.ErrNotExist) {
		return res, nil // gone, as it was before the session
	}
	if err != nil {
		res.Failed = append(res.Failed, fmt.Sprintf("%s: %v", path, err))
		return res, nil
	}
	defer slot.Close()
	now := snapshotOf(slot)
	switch {
	case sameContent(now, e.first):
		return res, nil // already as it was
	case !sameContent(now, e.last) || now.mode&(1<<31) != 0:
		res.Refused = append(res.Refused, path)
		return res, nil
	}
	switch err := e.first.restore(slot, e.at.real, j.wroteLocked()); {
	case err != nil:
		res.Failed = append(res.Failed, fmt.Sprintf("%s: %v", path, err))
	case e.first.exists:
		res.Restored = append(res.Restored, path)
	default:
		res.Removed = append(res.Removed, path)
	}
	return res, nil
}

// Diff is the change as a unified diff naming the file rel; a binary
// file is named, not shown.
func (c SessionChange) Diff(rel string) string {
	if c.Binary() {
		return fmt.Sprintf("Binary file %s %s\n", rel, c.Status)
	}
	return udiff.Unified("a/"+rel, "b/"+rel, string(c.Before), string(c.After))
}

// sameContent compares what a person sees of a file: whether it exists
// and its bytes (a git snapshot keeps no exact mode).
func sameContent(a, b fileSnapshot) bool {
	return a.exists == b.exists && bytes.Equal(a.data, b.data)
}
