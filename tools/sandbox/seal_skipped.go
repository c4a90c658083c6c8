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
// at most maxSkippedDirs of them.

const (
	skippedDepth   = 3 // a .git this many levels below a skipped folder, at most
	maxSkippedDirs = 4000
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

// skipWatches maps each *protectIndex to its *skipWatch.
var skipWatches sync.Map

func (x *protectIndex) skipWatch() *skipWatch {
	w, _ := skipWatches.LoadOrStore(x, &skipWatch{roots: map[string]bool{}, dirs: map[string]skipDir{}})
	return w.(*skipWatch)
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
func (x *protectIndex) scanSkipped(busy bool) {
	w := x.skipWatch()
	w.mu.Lock()
	var found []string
	queue := make([]string, 0, len(w.dirs))
	for d := range w.dirs {
		queue = append(queue, d)
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		sd := w.dirs[d]
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			delete(w.dirs, d)
			delete(w.roots, d)
			continue
		}
		if fi.ModTime().Equal(sd.mtime) {
			continue
		}
		sd.mtime = fi.ModTime()
		if time.Since(sd.mtime) < 2*ctimeSlack {
			sd.mtime = time.Time{} // the coarse clock: an entry may follow in the same tick
		}
		w.dirs[d] = sd
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			p := filepath.Join(d, e.Name())
			if e.Name() == ".git" {
				found = append(found, p)
				continue
			}
			if _, known := w.dirs[p]; !e.IsDir() || known || sd.depth+1 >= skippedDepth || len(w.dirs) >= maxSkippedDirs {
				continue
			}
			w.dirs[p] = skipDir{depth: sd.depth + 1}
			queue = append(queue, p)
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
