package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// A .git the seal keeps may move with a folder above it: the model
// reorganising a project (mv vendor/lib lib), or the first step of a
// route around the binds (mv sub subx, then a copy put back at sub). The
// folder keeps its inode, so the seal knows it at its new place: there,
// its config, hooks, attributes and pointers must still be as saved (one
// not bound in place could have been changed after the move), and its
// old place, left empty, is not made again.

// sealParts are the parts of a git folder the seal keeps, relative to it.
var sealParts = []string{"config", "config.worktree", "hooks", filepath.Join("info", "attributes"), "commondir"}

// sealMoved finds the kept .git folder that e is (the same inode), puts
// its parts back where they differ from the saved copy, and takes the
// move as the new saved state; it says what it put back.
func (s *Sandbox) sealMoved(e string) (bool, []string) {
	fi, err := os.Lstat(e)
	if err != nil || !fi.IsDir() {
		return false, nil
	}
	id := statOf(fi)
	s.seal.mu.Lock()
	defer s.seal.mu.Unlock()
	var from string
	for p, r := range s.seal.roots {
		f := s.seal.saved[p]
		if !r.deep && f != nil && !f.absent && f.id.ino == id.ino && f.id.dev == id.dev && p != e {
			if _, err := os.Lstat(p); err != nil || !sameInode(p, id) {
				from = p
				break
			}
		}
	}
	if from == "" {
		return false, nil
	}
	var notes []string
	for _, part := range sealParts {
		old, now := filepath.Join(from, part), filepath.Join(e, part)
		r, ok := s.seal.roots[old]
		if !ok {
			continue
		}
		moved := sealRoot{path: now, deep: true, why: r.why}
		// The saved copy, as if it had been made at the new place.
		for p, f := range s.seal.saved {
			if within(p, old) {
				s.seal.saved[now+strings.TrimPrefix(p, old)] = f
			}
		}
		s.seal.roots[now] = moved
		if changed := s.sealDiff(moved); len(changed) > 0 {
			if s.sealRestore(moved, changed) {
				notes = append(notes, s.relName(now)+" (moved with its folder, and put back as it was before the command changed it): "+r.why)
			} else {
				notes = append(notes, s.relName(now)+" (moved with its folder and changed by the command, and could not be put back): "+r.why)
			}
		}
		// Its old place is empty now: kept as that.
		if _, err := os.Lstat(old); err != nil {
			s.sealSave(r)
		}
	}
	s.sealSave(sealRoot{path: e, why: whyGitDir})
	if _, err := os.Lstat(from); err != nil {
		s.sealSave(s.seal.roots[from])
	}
	return true, notes
}

// sameInode reports whether path is the file with id's inode.
func sameInode(path string, id statID) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	now := statOf(fi)
	return now.ino == id.ino && now.dev == id.dev
}
