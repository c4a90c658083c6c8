package sandbox

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"
)

// The seal keeps what git, shells and editors execute in the workspace as
// it was before a contained command, whatever route the command takes.
// Read-only binds alone cannot: they move with a renamed parent, and a
// copy put back in its place is writable. So before each command aci
// records the exec-relevant files (every git folder's config, hooks,
// attributes and pointers; the protected files present at any depth) —
// their status, and their content the first time or after the person
// changed them — and after it (and on the periodic look while a command or
// task runs, and before any git call of aci's own: safegit) it compares
// them, puts back from the saved copy whatever changed, moves out of the
// workspace what appeared, and names each in the command's result.
//
// Checking costs a stat per sealed file (a few dozen for a usual
// repository); the content is read only where the status moved.

// Bounds on what one sealed root keeps: a protected folder (.idea, .vscode)
// larger than this is sealed only up to them.
const (
	sealMaxFiles = 400
	sealMaxBytes = 4 << 20
	sealMaxFile  = 1 << 20
)

// sealedFile is one saved path: a file (data), a folder or a link; absent
// records that nothing was there.
type sealedFile struct {
	absent bool
	mode   fs.FileMode
	data   []byte
	link   string
	id     statID
	big    bool // a file over sealMaxFile: its status only
}

// statID is what tells that a path changed without reading it.
type statID struct {
	dev, ino       uint64
	size           int64
	mtime, ctimeNs int64
	mode           fs.FileMode
}

func statOf(fi fs.FileInfo) statID {
	id := statID{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode(), ctimeNs: ctime(fi).UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
	}
	return id
}

// sealRoot is one path kept: deep walks a folder's files; a shallow one
// (a work tree's .git folder) is kept as a folder only, its parts being
// roots of their own.
type sealRoot struct {
	path string
	deep bool
	why  string
	// bound: a protected file, bound read-only for each command that
	// started after it was saved (seal_held.go).
	bound   bool
	savedAt time.Time
	anc     []statID // the folders between the workspace and it, when saved
}

// sealState is a Sandbox's saved copy.
type sealState struct {
	mu     sync.Mutex
	paused int                    // uncontained commands running: what they change is the person's choice
	saved  map[string]*sealedFile // every path below each root, roots included
	roots  map[string]sealRoot
}

// The reasons named in a result.
const (
	whyGitDir    = "git reads its configuration and hooks from this folder: another one in its place runs code when the person runs git"
	whyGitFile   = "git follows this file to the repository's folder: a change points git at a configuration that runs code"
	whyGitConfig = "git obeys this file when the person runs it: a setting off the list of inert ones (a program, a transport, a file or folder it names) acts outside the sandbox"
	whyGitHooks  = "git runs the hooks in this folder when the person commits, merges or checks out"
	whyGitAttrs  = "git picks the filters and diff drivers it runs by these attributes"
	whyGitCommon = "git takes the repository's configuration from the folder this file names"
)

// sealBegin records the sealed paths before a command starts. Where one
// changed while no command or task of this sandbox ran, the change is the
// person's: the saved copy takes it.
func (s *Sandbox) sealBegin(x *protectIndex) { s.sealBeginLook(x)() }

// sealBeginLook is sealBegin in two steps: the index's look now, and the
// record it returns, which the caller makes before the command runs
// anything (while bwrap sets the command up, for one that bwrap holds).
// Whether a command runs is judged now, before this one begins.
func (s *Sandbox) sealBeginLook(x *protectIndex) (record func()) {
	idle := !x.running()
	s.protectedPresent(nil) // the index's first walk finds the nested .git folders
	// What is saved for the first time counts as saved now, before the
	// command begins: every command that begins later binds it (seal_held.go).
	at := time.Now()
	return func() {
		x.scanSkipped(!idle) // and those in folders it does not look into
		s.sealBeginRoots(s.sealRoots(append(x.presentProtected(), s.policy.Protected...)), idle, at)
	}
}

// sealBeginRoots saves the roots not kept yet, and when idle those that
// changed, as saved at time at.
func (s *Sandbox) sealBeginRoots(roots []sealRoot, idle bool, at time.Time) {
	s.seal.mu.Lock()
	defer s.seal.mu.Unlock()
	if s.seal.saved == nil {
		s.seal.saved, s.seal.roots = map[string]*sealedFile{}, map[string]sealRoot{}
		sealRegister()
	}
	listed := map[string]bool{}
	for _, r := range roots {
		listed[r.path] = true
		_, known := s.seal.roots[r.path]
		if known && (!idle || len(s.sealDiff(r)) == 0) {
			continue
		}
		s.sealSaveAt(r, at)
	}
	if !idle {
		return
	}
	// Kept from before but no longer listed (a .git the person removed,
	// and its parts): as they are now is the person's doing too.
	for p, r := range s.seal.roots {
		if !listed[p] && len(s.sealDiff(r)) > 0 {
			s.sealSaveAt(r, at)
		}
	}
}

// sealSave saves root r as it is now (under seal.mu).
func (s *Sandbox) sealSave(r sealRoot) { s.sealSaveAt(r, time.Now()) }

// sealSaveAt is sealSave, the root counting as saved at time at.
func (s *Sandbox) sealSaveAt(r sealRoot, at time.Time) {
	wasThere := s.seal.saved[r.path] != nil && !s.seal.saved[r.path].absent
	for p := range s.seal.saved {
		if r.covers(p) {
			delete(s.seal.saved, p)
		}
	}
	r.savedAt, r.anc = at, s.ancestors(r.path)
	if prev, ok := s.seal.roots[r.path]; ok && wasThere && !prev.savedAt.IsZero() {
		r.savedAt = prev.savedAt // bound since it was first saved
	}
	s.seal.roots[r.path] = r
	budget := sealMaxBytes
	n := 0
	save := func(p string, fi fs.FileInfo) {
		f := &sealedFile{mode: fi.Mode(), id: statOf(fi)}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			f.link, _ = os.Readlink(p)
		case fi.Mode().IsRegular() && r.deep:
			if fi.Size() > sealMaxFile || int(fi.Size()) > budget {
				f.big = true
			} else if b, err := os.ReadFile(p); err == nil {
				f.data = b
				budget -= len(b)
			} else {
				f.big = true
			}
		}
		s.seal.saved[p] = f
		n++
	}
	fi, err := os.Lstat(r.path)
	if err != nil {
		s.seal.saved[r.path] = &sealedFile{absent: true}
		return
	}
	save(r.path, fi)
	if !fi.IsDir() || !r.deep {
		return
	}
	filepath.WalkDir(r.path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == r.path {
			return nil
		}
		if n >= sealMaxFiles {
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err == nil {
			save(p, fi)
		}
		return nil
	})
}

// covers reports whether saved path p belongs to root r: a shallow root
// is its own path only (its parts are roots of their own).
func (r sealRoot) covers(p string) bool {
	if r.deep {
		return within(p, r.path)
	}
	return p == r.path
}

// sealDiff lists the paths of root r that are not as saved (under
// seal.mu): changed, gone, or new in a sealed folder.
func (s *Sandbox) sealDiff(r sealRoot) []string {
	var out []string
	seen := map[string]bool{}
	for p, f := range s.seal.saved {
		if !r.covers(p) {
			continue
		}
		seen[p] = true
		if !f.same(p, r.deep) {
			out = append(out, p)
		}
	}
	// New entries count in a sealed folder only; where a file or nothing
	// was, the root itself differs and goes back whole.
	if f := s.seal.saved[r.path]; !r.deep || f == nil || f.absent || !f.mode.IsDir() {
		return out
	}
	n := 0
	filepath.WalkDir(r.path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > sealMaxFiles*2 {
			return filepath.SkipAll
		}
		if !seen[p] {
			out = appendUnique(out, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out
}

// same reports whether path is still as f saved it: the same status, or
// (a copy put in its place) the same type and content.
func (f *sealedFile) same(path string, deep bool) bool {
	fi, err := os.Lstat(path)
	if f.absent || err != nil {
		return f.absent && err != nil
	}
	now := statOf(fi)
	if now == f.id {
		return true
	}
	if fi.Mode().Type() != f.mode.Type() {
		return false
	}
	switch {
	case fi.IsDir():
		// A folder copied back in place of the saved one: what counts is
		// what is in it, which has roots or entries of its own.
		return true
	case fi.Mode()&fs.ModeSymlink != 0:
		l, _ := os.Readlink(path)
		return l == f.link
	case f.big || !deep:
		return now.size == f.id.size && now.mtime == f.id.mtime && fi.Mode().Perm() == f.mode.Perm()
	}
	if fi.Mode().Perm()&0o111 != f.mode.Perm()&0o111 || fi.Size() != int64(len(f.data)) {
		return false
	}
	b, err := os.ReadFile(path)
	return err == nil && bytes.Equal(b, f.data)
}

// sealCheck compares every sealed path with its saved copy and puts back
// what changed, returning what it did ("path (put back ...): why"). It is
// the end of a command, a periodic look, or the step before aci runs git.
func (s *Sandbox) sealCheck() []string {
	s.seal.mu.Lock()
	paused := s.seal.paused > 0
	s.seal.mu.Unlock()
	if paused {
		return nil
	}
	notes := append(s.sealNew(), s.sealNewInner()...)
	s.seal.mu.Lock()
	defer s.seal.mu.Unlock()
	if s.seal.roots == nil {
		return nil
	}
	var roots []sealRoot
	for _, r := range s.seal.roots {
		roots = append(roots, r)
	}
	// Parents first: a .git put back before what is in it.
	sort.Slice(roots, func(i, j int) bool { return roots[i].path < roots[j].path })
	for _, r := range roots {
		if aciWriting(r) {
			continue
		}
		changed := s.sealDiff(r)
		if len(changed) == 0 {
			continue
		}
		if s.sealHeld(r) {
			s.sealSave(r) // no contained command could have: the person's change
			continue
		}
		sort.Strings(changed)
		if r.why == whyGitConfig && r.deep {
			if note, done := s.sealConfig(r, changed); done {
				if note != "" {
					notes = append(notes, note)
				}
				continue
			}
		}
		if s.sealRestore(r, changed) {
			notes = append(notes, s.relName(r.path)+" (put back as it was before the command changed it): "+r.why)
		} else {
			notes = append(notes, s.relName(r.path)+" (changed by the command, and could not be put back): "+r.why)
		}
	}
	return notes
}
