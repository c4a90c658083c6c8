package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The index does not look into dependency and build folders (vendor,
// node_modules, target ...: skippedDirs), but a git folder there obeys
// its config like any other when the person runs git in it: `git init
// vendor/lib` is the first thing a command planting a remote would do.
// So the seal looks for .git entries in those folders itself, a few
// levels down (vendor/lib, node_modules/@scope/pkg, vendor/host/org/repo),
// re-reading a folder only when its mtime moved: a stat per folder kept,
// at most maxSkippedDirs of them, the shallower first (in a node_modules
// of thousands of packages, the packages' own folders are not kept).

const (
	skippedDepth    = 4    // a .git this many levels below a skipped folder, at most
	maxSkippedDirs  = 128  // folders kept (a stat each per command)
	maxSkippedReads = 2000 // folders read in one scan
)

// skipWatch is what the seal keeps of one index's skipped folders.
type skipWatch struct {
	mu      sync.Mutex
	roots   map[string]bool
	dirs    map[string]skipDir
	scanned bool // the first scan is done: .git entries found since are late
}

type skipDir struct {
	mtime time.Time // zero: read it again
	depth int       // below its skipped folder
}

// skipWatch is the index's, made at first use.
func (x *protectIndex) skipWatch() *skipWatch {
	x.skipOnce.Do(func() { x.skip = &skipWatch{roots: map[string]bool{}, dirs: map[string]skipDir{}} })
	return x.skip
}

// noteSkipped records a skipped folder the index met (noteGit calls it).
func (x *protectIndex) noteSkipped(p string, d fs.DirEntry) {
	if !d.IsDir() || d.Name() == ".git" || !skippedDirs[d.Name()] {
		return
	}
	w := x.skipWatch()
	w.mu.Lock()
	if !w.roots[p] {
		w.roots[p] = true
		if len(w.dirs) < maxSkippedDirs {
			w.dirs[p] = skipDir{}
		}
	}
	w.mu.Unlock()
}

// scanSkipped finds the .git entries of the skipped folders and notes
// them in the index like those it met itself. busy says a command ran
// since the last scan (the one after it) or runs now: what is new then is
// its doing. The index's own test (madeWhileBusy) cannot serve: its look
// after the command has let go of the command's time span already.
//
// Past the bound on folders kept, the first scan still reads every
// folder (at most maxSkippedReads) to find the person's repositories, and
// a later one reads the folders below one whose mtime moved: a git init
// or clone into a new folder under one kept is found wherever it lands.
func (x *protectIndex) scanSkipped(busy bool) {
	w := x.skipWatch()
	w.mu.Lock()
	if w.scanned && !busy {
		// Before a command, with none running: the scan after the last
		// one is recent, and what the person made since is theirs.
		w.mu.Unlock()
		return
	}
	type item struct {
		path  string
		depth int
	}
	var found []string
	queue := make([]item, 0, len(w.dirs))
	for d, sd := range w.dirs {
		queue = append(queue, item{d, sd.depth})
	}
	reads := 0
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		sd, kept := w.dirs[it.path]
		fi, err := os.Lstat(it.path)
		if err != nil || !fi.IsDir() {
			delete(w.dirs, it.path)
			delete(w.roots, it.path)
			continue
		}
		if kept {
			if fi.ModTime().Equal(sd.mtime) {
				continue
			}
			sd.mtime = fi.ModTime()
			if time.Since(sd.mtime) < 2*ctimeSlack {
				sd.mtime = time.Time{} // the coarse clock: an entry may follow in the same tick
			}
			w.dirs[it.path] = sd
		}
		if reads++; reads > maxSkippedReads {
			break
		}
		ents, err := os.ReadDir(it.path)
		if err != nil {
			continue
		}
		for _, e := range ents {
			p := filepath.Join(it.path, e.Name())
			if e.Name() == ".git" {
				found = append(found, p)
				continue
			}
			if _, known := w.dirs[p]; !e.IsDir() || known || it.depth+1 >= skippedDepth {
				continue
			}
			// Past the bound, a folder is read in this scan only, to
			// find a .git there now: the person's on the first scan
			// (kept like any nested repository from then on), a
			// command's below a folder that changed.
			if len(w.dirs) < maxSkippedDirs {
				w.dirs[p] = skipDir{depth: it.depth + 1}
			}
			queue = append(queue, item{p, it.depth + 1})
		}
	}
	late := w.scanned && busy
	w.scanned = true
	w.mu.Unlock()
	if len(found) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.gits == nil {
		x.gits = map[string]bool{}
	}
	for _, p := range found {
		if _, ok := x.gits[p]; !ok {
			x.gits[p] = late
		}
	}
}
