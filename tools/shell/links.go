package shell

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// maxLinkScanDirs bounds the folders a links scan keeps track of.
const maxLinkScanDirs = 20000

// linkScanner finds the symlinks commands make in the workspace that lead
// out of it. The first scan walks the tree (at most maxLinkScanDirs
// folders) and remembers each folder's mtime; later scans only stat the
// folders they know and read again those whose mtime moved (making a link
// changes its folder's mtime), walking the new folders they find there.
type linkScanner struct {
	mu       sync.Mutex
	root     string
	rootReal string
	dirs     map[string]time.Time // folder → mtime when last read
}

func newLinkScanner(root string) *linkScanner {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	return &linkScanner{root: root, rootReal: r}
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
	if s.dirs == nil {
		s.dirs = map[string]time.Time{}
		s.walk(s.root, since, &out)
	} else {
		for d, seen := range s.dirs {
			fi, err := os.Lstat(d)
			switch {
			case err != nil || !fi.IsDir():
				delete(s.dirs, d)
			case !fi.ModTime().Equal(seen):
				s.read(d, fi.ModTime(), since, &out)
			}
		}
	}
	sort.Strings(out)
	return out
}

// walk reads base and every folder below it that is not known yet.
func (s *linkScanner) walk(base string, since time.Time, out *[]string) {
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if _, known := s.dirs[p]; (known && p != base) || len(s.dirs) >= maxLinkScanDirs {
				return filepath.SkipDir
			}
			if fi, err := d.Info(); err == nil {
				s.dirs[p] = fi.ModTime()
			}
			return nil
		}
		s.check(p, d, since, out)
		return nil
	})
}

// read looks at the entries of a known folder whose mtime moved.
func (s *linkScanner) read(dir string, mtime, since time.Time, out *[]string) {
	s.dirs[dir] = mtime
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if _, known := s.dirs[p]; !known {
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
