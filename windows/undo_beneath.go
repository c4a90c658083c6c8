package windows

import (
	"path/filepath"

	"github.com/aci-dev/aci/tools/textfile"
)

// place is where a recorded file was when recorded: the folder it is put
// back beneath (the workspace, or for a file outside it that the person
// allowed a write to, that file's own folder) and its real path then. A
// restore goes there and follows no link made since (textfile.Anchor).
type place struct {
	anchor textfile.Anchor
	real   string
}

// SetWorkspace tells the journal the session's workspace: files below it
// are put back beneath it, as it is now.
func (j *UndoJournal) SetWorkspace(root string) {
	a, err := textfile.NewAnchor(root)
	if err != nil {
		return
	}
	j.mu.Lock()
	j.ws = a
	j.mu.Unlock()
}

// curLocked makes the running turn's record when it has none yet.
func (j *UndoJournal) curLocked() {
	if j.cur == nil {
		j.cur = &turnChanges{turn: j.next, before: map[string]fileSnapshot{}, at: map[string]place{}}
	}
}

// placeOf is where path is now.
func (j *UndoJournal) placeOf(path string) place {
	real := textfile.RealPath(path)
	return place{anchor: j.anchorOf(filepath.Dir(real)), real: real}
}

// anchorOf is the workspace when dir is in it, else dir itself as it is
// now.
func (j *UndoJournal) anchorOf(dir string) textfile.Anchor {
	if j.ws.Path != "" && (j.ws.Holds(dir) || j.ws.Path == dir) {
		return j.ws
	}
	a, err := textfile.NewAnchor(dir)
	if err != nil {
		return textfile.Anchor{Path: dir}
	}
	return a
}

// open opens the place's folder beneath its anchor (create: making
// missing folders).
func (p place) open(create bool) (*textfile.Slot, error) {
	return p.anchor.Open(p.real, create)
}

// read is the file at the place now; a file that cannot be read there
// counts as missing.
func (p place) read() fileSnapshot {
	slot, err := p.open(false)
	if err != nil {
		return fileSnapshot{}
	}
	defer slot.Close()
	return snapshotOf(slot)
}

// snapshotOf is what the slot holds: a link or another kind of file has
// no content, so it never equals a file aci left.
func snapshotOf(slot *textfile.Slot) fileSnapshot {
	st, err := slot.Read()
	if !st.Exists {
		return fileSnapshot{}
	}
	s := fileSnapshot{exists: true, mode: st.Mode, ident: st.Ident}
	if err == nil && st.Regular {
		s.data = st.Data
	} else {
		s.mode |= 1 << 31 // never equal to a regular file's
	}
	return s
}

// treeIdents are the identities of the files the commands of a turn
// left, from the workspace's two snapshots.
func treeIdents(at textfile.Anchor, before, after worktreeSnapshot) map[string]textfile.Ident {
	changes, err := changesBetween(before, after)
	if err != nil {
		return nil
	}
	out := map[string]textfile.Ident{}
	for _, c := range changes {
		if c.after == "" {
			continue
		}
		if s := (place{anchor: at, real: c.path}).read(); s.exists {
			out[c.path] = s.ident
		}
	}
	return out
}

// wroteLocked is the record of the files undo and rewind wrote back.
func (j *UndoJournal) wroteLocked() map[string]textfile.Ident {
	if j.wrote == nil {
		j.wrote = map[string]textfile.Ident{}
	}
	return j.wrote
}
