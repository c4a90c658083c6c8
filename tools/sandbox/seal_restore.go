package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// How the seal puts back what a command changed (seal.go).

// sealRestore puts the changed paths of r back from the saved copy
// (under seal.mu), reporting whether all went back.
func (s *Sandbox) sealRestore(r sealRoot, changed []string) bool {
	ok := true
	for _, p := range changed {
		f := s.seal.saved[p]
		if f == nil || f.absent {
			// New in a sealed folder, or where nothing was: moved out.
			if _, err := os.Lstat(p); err == nil && !s.moveOut(p) {
				ok = false
			}
			continue
		}
		if !s.putBack(p, f) {
			ok = false
		}
	}
	// What went back has a new status: saved as it is now, the content
	// being the saved one.
	for p, f := range s.seal.saved {
		if r.covers(p) && !f.absent {
			if fi, err := os.Lstat(p); err == nil {
				f.id = statOf(fi)
			}
		}
	}
	return ok
}

// putBack makes path what f saved: what stands there in another shape is
// moved out first; a missing folder above it is made again.
func (s *Sandbox) putBack(path string, f *sealedFile) bool {
	fi, err := os.Lstat(path)
	if err == nil && (fi.Mode().Type() != f.mode.Type() || fi.Mode()&fs.ModeSymlink != 0) {
		if f.mode.IsDir() && fi.Mode().IsRegular() && s.renameBack(path, f) {
			return true
		}
		if !s.moveOut(path) {
			return false
		}
		err = os.ErrNotExist
	}
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return false
	}
	switch {
	case f.mode.IsDir():
		if err != nil {
			return os.Mkdir(path, f.mode.Perm()) == nil
		}
		return os.Chmod(path, f.mode.Perm()) == nil
	case f.mode&fs.ModeSymlink != 0:
		os.Remove(path)
		return os.Symlink(f.link, path) == nil
	case f.big:
		return false
	}
	return writeAtomic(path, f.data, f.mode.Perm())
}

// renameBack finds the saved folder (by its inode) among path's siblings,
// where a rename put it (.git renamed to .gitx, a .git file in its
// place), and moves it back.
func (s *Sandbox) renameBack(path string, f *sealedFile) bool {
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return false
	}
	for _, e := range ents {
		p := filepath.Join(filepath.Dir(path), e.Name())
		if !e.IsDir() || p == path {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil || statOf(fi).ino != f.id.ino || statOf(fi).dev != f.id.dev {
			continue
		}
		if !s.moveOut(path) {
			return false
		}
		return os.Rename(p, path) == nil
	}
	return false
}

// writeAtomic writes data to path through a temp file in its folder.
func writeAtomic(path string, data []byte, perm fs.FileMode) bool {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".aci-restore-*")
	if err != nil {
		return false
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Chmod(tmp.Name(), perm) != nil {
		os.Remove(tmp.Name())
		return false
	}
	if os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
		return false
	}
	return true
}

// relName is path relative to the workspace, when it lies there.
func (s *Sandbox) relName(path string) string {
	if len(s.policy.Workspace) > 0 {
		if r, err := filepath.Rel(s.policy.Workspace[0], path); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return path
}

// moveOut takes what a command put at path out of the workspace: into the
// session's temp folder, or, where it cannot go there (another file
// system), removed: it is the command's, and must not stay.
func (s *Sandbox) moveOut(path string) bool {
	if !strings.HasSuffix(s.quarantine(path), "(could not be moved away)") {
		return true
	}
	return os.RemoveAll(path) == nil
}
