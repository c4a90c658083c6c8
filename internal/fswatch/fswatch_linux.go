package fswatch

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Watcher watches folders, each added by itself (Add): a folder made in
// a watched one is not watched until added.
type Watcher struct {
	fd   int
	mask uint32
	max  int

	mu    sync.Mutex
	dirs  map[int]string // by watch descriptor
	paths map[string]int // the other way

	// rmu holds the reading of the descriptor (and its closing).
	rmu    sync.Mutex
	buf    []byte
	closed bool
}

// New makes a Watcher of at most max folders, hearing of what m names.
func New(m Mask, max int) (*Watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	mask := uint32(unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MOVE_SELF |
		unix.IN_DELETE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK)
	if m&Content != 0 {
		mask |= unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB
	}
	return &Watcher{fd: fd, mask: mask, max: max, dirs: map[int]string{}, paths: map[string]int{}, buf: make([]byte, 64<<10)}, nil
}

// Add watches folder dir (again: under its path now, if it moved). It
// returns ErrFull when there is no room; another error when dir is gone
// or not a folder.
func (w *Watcher) Add(dir string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.paths[dir]; !ok && len(w.paths) >= w.max {
		return ErrFull
	}
	wd, err := unix.InotifyAddWatch(w.fd, dir, w.mask)
	if err != nil {
		if errors.Is(err, unix.ENOSPC) {
			return fmt.Errorf("%w (fs.inotify.max_user_watches)", ErrFull)
		}
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	// The same folder under another path (it moved): one entry, the new.
	if old, ok := w.dirs[wd]; ok && old != dir {
		delete(w.paths, old)
	}
	if prev, ok := w.paths[dir]; ok && prev != wd {
		delete(w.dirs, prev) // another folder had this path
	}
	w.dirs[wd], w.paths[dir] = dir, wd
	return nil
}

// Watched reports whether dir is watched.
func (w *Watcher) Watched(dir string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.paths[dir]
	return ok
}

// Len is how many folders are watched.
func (w *Watcher) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.paths)
}

// Read hands fn the events queued, without waiting; lost says some were
// lost (the kernel's queue overflowed, or a watched folder moved where
// its path is not known): the caller must look at everything. fn must
// not call Read.
//
// A folder moved away takes its watches with it; they are dropped at
// once, so that no event of theirs is taken for one at the old path.
func (w *Watcher) Read(fn func(Event)) (lost bool) {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	if w.closed {
		return true
	}
	for {
		n, err := unix.Read(w.fd, w.buf)
		if err != nil || n <= 0 {
			return lost // EAGAIN: nothing more queued
		}
		var evs []Event
		w.mu.Lock()
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			end := off + unix.SizeofInotifyEvent + int(ev.Len)
			if end > n {
				break
			}
			name := strings.TrimRight(string(w.buf[off+unix.SizeofInotifyEvent:end]), "\x00")
			off = end
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				lost = true
				continue
			case ev.Mask&unix.IN_IGNORED != 0:
				if p, ok := w.dirs[int(ev.Wd)]; ok {
					delete(w.dirs, int(ev.Wd))
					if w.paths[p] == int(ev.Wd) {
						delete(w.paths, p)
					}
				}
				continue
			}
			dir, ok := w.dirs[int(ev.Wd)]
			if !ok {
				continue // a watch dropped since: its folder moved
			}
			if ev.Mask&unix.IN_MOVE_SELF != 0 {
				// Its parent, if watched, said so first and the watch is
				// gone; else the watched folder moved unseen.
				lost = true
				w.dropLocked(dir)
				continue
			}
			if name == "" {
				continue // the folder's own change (removed: IN_IGNORED follows)
			}
			e := Event{Path: filepath.Join(dir, name), Dir: ev.Mask&unix.IN_ISDIR != 0,
				Made: ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0, Gone: ev.Mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0}
			if e.Dir && ev.Mask&unix.IN_MOVED_FROM != 0 {
				w.dropLocked(e.Path)
			}
			evs = append(evs, e)
		}
		w.mu.Unlock()
		for _, e := range evs {
			fn(e)
		}
	}
}

// dropLocked stops watching dir and every folder below it (mu held).
func (w *Watcher) dropLocked(dir string) {
	for p, wd := range w.paths {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			unix.InotifyRmWatch(w.fd, uint32(wd))
			delete(w.paths, p)
			delete(w.dirs, wd)
		}
	}
}

// Close stops the watcher; Read then says all is lost.
func (w *Watcher) Close() {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	if w.closed {
		return
	}
	w.closed = true
	unix.Close(w.fd)
}
