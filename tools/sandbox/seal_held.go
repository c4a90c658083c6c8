package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Some sealed paths no contained command can change at all: the root
// repository's config and hooks (bound read-only in every command, in a
// .git bound over itself, in the workspace, itself a mount), and a
// protected file bound read-only for every command that ran since it was
// saved, as long as no folder above it was replaced (renaming a parent
// is the one way around a bind). A change to one of those is the
// person's own (git push -u, an edit in their editor while a background
// task runs): the seal takes it as the new saved copy instead of putting
// the old one back.

// sealHeld reports whether r is such a path (under seal.mu).
func (s *Sandbox) sealHeld(r sealRoot) bool {
	if !slices.Equal(s.ancestors(r.path), r.anc) {
		return false
	}
	// Replaced rather than changed in place (an atomic save, git's lock
	// file renamed over it): the bind on the old file is gone in running
	// commands, which may have written the new one since.
	saved := s.seal.saved[r.path]
	fi, err := os.Lstat(r.path)
	if saved == nil || saved.absent || err != nil || statOf(fi).ino != saved.id.ino || statOf(fi).dev != saved.id.dev {
		return false
	}
	if underAny(r.path, s.policy.ReadOnly) {
		return true
	}
	if !r.bound {
		return false
	}
	x := s.indexed()
	return x != nil && x.allStartedAfter(r.savedAt)
}

// ancestors are the identities of the folders between the workspace root
// (excluded: a mount, never replaced) and path.
func (s *Sandbox) ancestors(path string) []statID {
	if len(s.policy.Workspace) == 0 || !within(path, s.policy.Workspace[0]) {
		return nil
	}
	ws := s.policy.Workspace[0]
	var out []statID
	for d := filepath.Dir(path); d != ws && within(d, ws); d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil {
			out = append(out, statID{})
			continue
		}
		id := statOf(fi)
		out = append(out, statID{dev: id.dev, ino: id.ino})
	}
	return out
}

// allStartedAfter reports whether every command the index knows of
// (running, or ended since its last look) started after t.
func (x *protectIndex) allStartedAfter(t time.Time) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, b := range x.busy {
		if !b.start.After(t) {
			return false
		}
	}
	return true
}
