package sandbox

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/aci-dev/aci/internal/fswatch"
)

// The index's look (protect_index.go) used to stat every folder it knows
// (11 to 22 ms for 5,000 folders) before and after each command. Now the
// kernel tells which folders' entries changed (internal/fswatch): each
// folder is watched before it is read, so that an entry made while it is
// read is heard of, and a look reads the folders that changed since the
// last. The kernel queues an event before the call that made the change
// returns, so a look after a command ended knows all it did. Where the
// watcher cannot serve (no inotify, the person's limit on watches, the
// kernel's queue overflowed, a watched folder moved unseen) the look
// stats every folder as before, and the watches are made again from it.

// errNoWatch, in noWatch, says the watches were turned off (tests).
var errNoWatch = errors.New("watches off")

// startWatch makes the index's watcher before its first walk (mu held).
func (x *protectIndex) startWatch() {
	if x.noWatch != nil {
		return
	}
	max := x.watchMax
	if max == 0 {
		max = maxIndexDirs
	}
	fw, err := fswatch.New(fswatch.Entries, max)
	if err != nil {
		x.noWatch = err
		return
	}
	x.fw, x.dirty = fw, map[string]bool{}
}

// watch watches folder p, about to be read (mu held); without room the
// index stops watching and looks at every folder from then on.
func (x *protectIndex) watch(p string) {
	if x.fw == nil {
		return
	}
	err := x.fw.Add(p)
	switch {
	case err == nil:
		delete(x.unwatched, p)
	case errors.Is(err, fswatch.ErrFull):
		x.stopWatch(err)
	default:
		// Cannot be watched but is there (no permission to read it): it
		// is looked at by stat, as without a watcher.
		if x.unwatched == nil {
			x.unwatched = map[string]bool{}
		}
		x.unwatched[p] = true
	}
}

// stopWatch closes the watcher for good, for reason why (mu held).
func (x *protectIndex) stopWatch(why error) {
	if x.fw != nil {
		x.fw.Close()
	}
	x.fw, x.dirty, x.noWatch = nil, nil, why
}

// changedDirs hears what changed since the last look (mu held): the
// known folders whose entries changed, and ok. Without ok some changes
// went unheard: the caller stats every folder, the watches made again.
func (x *protectIndex) changedDirs() (dirs []string, ok bool) {
	if x.fw == nil {
		return nil, false
	}
	lost := x.fw.Read(func(e fswatch.Event) {
		if e.Dir && e.Gone {
			x.forgetBelow(e.Path)
		}
		if d := filepath.Dir(e.Path); x.known(d) {
			x.dirty[d] = true
		}
	})
	if lost {
		x.relooks++
		x.rewatch()
		return nil, false
	}
	for d := range x.dirty {
		dirs = append(dirs, d)
	}
	for d := range x.unwatched {
		if fi, err := os.Lstat(d); err != nil || !fi.ModTime().Equal(x.dirs[d]) {
			dirs = append(dirs, d)
		}
	}
	clear(x.dirty)
	return dirs, true
}

// known reports whether the index keeps folder d (mu held).
func (x *protectIndex) known(d string) bool {
	_, ok := x.dirs[d]
	return ok
}

// forgetBelow forgets folder p, moved away or removed, and those below
// it (mu held): the move's other end, a folder read again, finds them
// anew.
func (x *protectIndex) forgetBelow(p string) {
	for d := range x.dirs {
		if within(d, p) {
			delete(x.dirs, d)
			delete(x.unwatched, d)
		}
	}
}

// rewatch makes the watches again, on every known folder, after events
// were lost (mu held): made before the look that follows reads what
// changed, so that nothing changed after it goes unheard.
func (x *protectIndex) rewatch() {
	x.stopWatch(nil)
	x.startWatch()
	for d := range x.dirs {
		if x.fw == nil {
			return
		}
		x.watch(d)
	}
}

// closeWatch stops the index's watcher (its Sandbox's Close).
func (x *protectIndex) closeWatch() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.stopWatch(errors.New("closed"))
}
