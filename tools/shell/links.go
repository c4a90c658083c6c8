package shell

import (
	"errors"
	"io/fs"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aci-dev/aci/internal/fswatch"
)

// maxLinkScanDirs bounds the folders a links scan keeps track of.
const maxLinkScanDirs = 20000

// linkScanner finds the symlinks commands make in the workspace that lead
// out of it. It learns the workspace's folders once, in the background
// from the shell's start (at most maxLinkScanDirs), watching each
// (internal/fswatch) before it reads it. After a command it reads only
// the folders the kernel said changed (a link made, or renamed into
// place, is an entry made in its folder), walking the new folders it
// finds there. Where the kernel cannot say (no inotify, no room for a
// watch, events lost) it stats every folder it knows and reads again
// those whose mtime moved, as every scan did before: some 20 ms a command
// in a repository of 5,000 folders, now paid only then.
type linkScanner struct {
	// mu is held by the first walk from newLinkScanner on: a scan waits
	// for it.
	mu       sync.Mutex
	root     string
	rootReal string
	dirs     map[string]time.Time // folder → mtime when last read
	fw       *fswatch.Watcher     // nil: every folder is looked at by stat
	dirty    map[string]bool      // folders the kernel said changed
	noWatch  map[string]bool      // known folders that could not be watched: looked at by stat
	// met are the links the first walk met that are recent enough for a
	// command of this shell to have made them: the first scan judges
	// them, since the walk may have read their folder before it could
	// hear of them.
	met     []string
	walkAt  time.Time
	closing atomic.Bool
}

func newLinkScanner(root string) *linkScanner {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	s := &linkScanner{root: root, rootReal: r, dirs: map[string]time.Time{}, walkAt: time.Now()}
	if fw, err := fswatch.New(fswatch.Entries, maxLinkScanDirs); err == nil {
		s.fw, s.dirty = fw, map[string]bool{}
	}
	s.mu.Lock()
	go func() {
		defer s.mu.Unlock()
		s.walk(s.root, time.Time{}, nil)
	}()
	return s
}

// close stops the scanner's watches (the Shell's Close).
func (s *linkScanner) close() {
	if s == nil {
		return
	}
	s.closing.Store(true) // the first walk stops early
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unwatch()
}

// unwatch closes the watcher: every folder is looked at by stat from
// then on (mu held).
func (s *linkScanner) unwatch() {
	if s.fw != nil {
		s.fw.Close()
	}
	s.fw, s.dirty, s.noWatch = nil, nil, nil
}

// scan lists the links made or changed since start that lead out of the
// workspace, as "name -> target", workspace-relative and sorted.
func (s *linkScanner) scan(start time.Time) []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	since := start.Add(-time.Second) // mtimes may be coarse
	var out []string
	for _, p := range s.met {
		if fi, err := os.Lstat(p); err == nil {
			s.check(p, fs.FileInfoToDirEntry(fi), since, &out)
		}
	}
	s.met = nil
	for _, d := range s.changed() {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			s.forget(d)
			continue
		}
		s.read(d, fi.ModTime(), since, &out)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// changed are the known folders whose entries may have changed since the
// last scan: those the kernel named, and those it could not watch whose
// mtime moved; every folder whose mtime moved where the kernel cannot
// say (mu held).
func (s *linkScanner) changed() []string {
	if s.fw != nil {
		lost := s.fw.Read(func(e fswatch.Event) {
			if e.Dir && e.Gone {
				s.forget(e.Path)
			}
			if d := filepath.Dir(e.Path); s.known(d) {
				s.dirty[d] = true
			}
		})
		if !lost {
			out := make([]string, 0, len(s.dirty))
			for d := range s.dirty {
				out = append(out, d)
			}
			clear(s.dirty)
			return append(out, s.moved(maps.Keys(s.noWatch))...)
		}
		s.rewatch()
	}
	return s.moved(maps.Keys(s.dirs))
}

// moved are the folders of set whose mtime is not the one they had when
// last read (mu held).
func (s *linkScanner) moved(set iter.Seq[string]) []string {
	var out []string
	for d := range set {
		if fi, err := os.Lstat(d); err != nil || !fi.ModTime().Equal(s.dirs[d]) {
			out = append(out, d)
		}
	}
	return out
}

// rewatch makes the watches again, on every known folder, after events
// were lost (mu held): before the look at every folder that follows, so
// that nothing changed after it goes unheard.
func (s *linkScanner) rewatch() {
	s.unwatch()
	fw, err := fswatch.New(fswatch.Entries, maxLinkScanDirs)
	if err != nil {
		return
	}
	s.fw, s.dirty = fw, map[string]bool{}
	for d := range s.dirs {
		if s.fw == nil {
			return
		}
		s.watch(d)
	}
}

// watch watches folder d, about to be read (mu held). Without room the
// scanner stops watching; a folder that cannot be watched otherwise is
// looked at by stat.
func (s *linkScanner) watch(d string) {
	if s.fw == nil {
		return
	}
	switch err := s.fw.Add(d); {
	case err == nil:
		delete(s.noWatch, d)
	case errors.Is(err, fswatch.ErrFull):
		s.unwatch()
	default:
		if s.noWatch == nil {
			s.noWatch = map[string]bool{}
		}
		s.noWatch[d] = true
	}
}

// known reports whether folder d is kept (mu held).
func (s *linkScanner) known(d string) bool {
	_, ok := s.dirs[d]
	return ok
}

// forget forgets folder p, gone or moved away, and those below it (mu
// held): where it went, the folder read there walks them anew.
func (s *linkScanner) forget(p string) {
	for d := range s.dirs {
		if d == p || strings.HasPrefix(d, p+"/") {
			delete(s.dirs, d)
			delete(s.noWatch, d)
		}
	}
}

// walk reads base and every folder below it that is not known yet; out
// is nil on the first walk, which keeps the recent links it meets in met
// instead (mu held).
func (s *linkScanner) walk(base string, since time.Time, out *[]string) {
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if s.closing.Load() {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if (s.known(p) && p != base) || len(s.dirs) >= maxLinkScanDirs {
				return filepath.SkipDir
			}
			if fi, err := d.Info(); err == nil {
				s.dirs[p] = fi.ModTime()
				s.watch(p) // before WalkDir reads it
			}
			return nil
		}
		if out == nil {
			s.meet(p, d)
			return nil
		}
		s.check(p, d, since, out)
		return nil
	})
}

// meet keeps a link the first walk met when a command of the shell may
// have made it: one made since a second before the walk began.
func (s *linkScanner) meet(p string, d fs.DirEntry) {
	if d.Type()&fs.ModeSymlink == 0 {
		return
	}
	if fi, err := os.Lstat(p); err == nil && !fi.ModTime().Before(s.walkAt.Add(-time.Second)) {
		s.met = append(s.met, p)
	}
}

// read looks at the entries of a known folder that changed.
func (s *linkScanner) read(dir string, mtime, since time.Time, out *[]string) {
	if !s.known(dir) {
		s.watch(dir) // another folder now where a known one went away
	}
	s.dirs[dir] = mtime
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if !s.known(p) {
				s.walk(p, since, out)
			}
			continue
		}
		s.check(p, e, since, out)
	}
}

// check adds p when it is a link made since that leads out.
func (s *linkScanner) check(p string, d fs.DirEntry, since time.Time, out *[]string) {
	if d.Type()&fs.ModeSymlink == 0 {
		return
	}
	fi, err := os.Lstat(p)
	if err != nil || fi.ModTime().Before(since) {
		return
	}
	if t, ok := leadsOut(p, s.rootReal); ok {
		rel, _ := filepath.Rel(s.root, p)
		*out = append(*out, rel+" -> "+t)
	}
}

// leadsOut reports where the link at p leads when that is outside root:
// resolved where it exists, as written (made absolute) where it dangles.
func leadsOut(p, root string) (string, bool) {
	t, err := os.Readlink(p)
	if err != nil {
		return "", false
	}
	abs := t
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(filepath.Dir(p), t)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	abs = filepath.Clean(abs)
	if abs == root || strings.HasPrefix(abs, root+"/") {
		return "", false
	}
	return t, true
}
