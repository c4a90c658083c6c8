package lsp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxWatchDirs bounds the folders a pool watches (one inotify watch
// each): a workspace with more is scanned instead.
const maxWatchDirs = 8192

// watchMask are the events that change a file's content or presence.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_MOVED_FROM |
	unix.IN_MOVED_TO | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// watcher hears from the kernel which files of a workspace change, so that
// an action costs the files it changed, not a walk of the workspace. The
// kernel queues the events as the files change; take reads them all, so
// what a command did before the action ended is known to the action.
type watcher struct {
	fd   int
	mu   sync.Mutex
	dirs map[int]string // by watch descriptor
	n    int            // watches held
	// pending are the paths changed since the last take, made says the
	// path was created then (not there at the last take).
	pending  map[string]bool
	overflow bool
	// rmu holds the reading of the descriptor (and its closing).
	rmu    sync.Mutex
	buf    []byte
	closed bool
}

// newWatcher watches the folders of root (not hidden ones, nor
// node_modules, as the scan skips them), or fails: no inotify, too many
// folders, the person's watch limit reached.
func newWatcher(root string) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	w := &watcher{fd: fd, dirs: map[int]string{}, pending: map[string]bool{}, buf: make([]byte, 64<<10)}
	if err := w.addTree(root, false); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return w, nil
}

// skipDir says the scan and the watches leave a folder out.
func skipDir(name string) bool { return strings.HasPrefix(name, ".") || name == "node_modules" }

// addTree watches dir and the folders below it; with made, the files in
// them are new (a folder made or moved in since the last take).
func (w *watcher) addTree(dir string, made bool) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() {
			if made {
				w.mu.Lock()
				w.note(path, true)
				w.mu.Unlock()
			}
			return nil
		}
		if path != dir && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.n >= maxWatchDirs {
			w.overflow = true
			return fmt.Errorf("more than %d folders", maxWatchDirs)
		}
		wd, err := unix.InotifyAddWatch(w.fd, path, watchMask)
		if err != nil {
			if errors.Is(err, unix.ENOSPC) {
				w.overflow = true
				return fmt.Errorf("inotify watch limit reached (fs.inotify.max_user_watches)")
			}
			return nil // gone, or not a folder any more
		}
		if _, seen := w.dirs[wd]; !seen {
			w.n++
		}
		w.dirs[wd] = path
		return nil
	})
}

// note records a change of path (mu held); too many pending is an
// overflow, as the kernel's own.
func (w *watcher) note(path string, made bool) {
	if len(w.pending) >= maxWatched {
		w.overflow = true
		return
	}
	w.pending[path] = w.pending[path] || made
}

// drain reads the events the kernel queued, without waiting.
func (w *watcher) drain() {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if err != nil || n <= 0 {
			return // EAGAIN: nothing more queued
		}
		var newDirs []string
		w.mu.Lock()
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameEnd := off + unix.SizeofInotifyEvent + int(ev.Len)
			if nameEnd > n {
				break
			}
			name := strings.TrimRight(string(w.buf[off+unix.SizeofInotifyEvent:nameEnd]), "\x00")
			off = nameEnd
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				w.overflow = true
				continue
			}
			if ev.Mask&unix.IN_IGNORED != 0 {
				if _, ok := w.dirs[int(ev.Wd)]; ok {
					delete(w.dirs, int(ev.Wd))
					w.n--
				}
				continue
			}
			dir, ok := w.dirs[int(ev.Wd)]
			if !ok || name == "" {
				continue
			}
			path := filepath.Join(dir, name)
			if ev.Mask&unix.IN_ISDIR != 0 {
				if ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 && !skipDir(name) {
					newDirs = append(newDirs, path)
				}
				// A folder moved away or removed: its files went with it;
				// the servers hear of the open ones through their windows.
				continue
			}
			w.note(path, ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0)
		}
		w.mu.Unlock()
		for _, d := range newDirs {
			_ = w.addTree(d, true)
		}
	}
}

// take hands over the changes since the last take, of files with the
// extensions exts, as LSP FileChangeTypes; ok is false after an overflow
// (the changes are not all known: the caller scans instead).
func (w *watcher) take(exts map[string]bool) (map[string]int, bool) {
	w.rmu.Lock()
	if !w.closed {
		w.drain()
	}
	w.rmu.Unlock()
	w.mu.Lock()
	pending, overflow := w.pending, w.overflow
	w.pending = map[string]bool{}
	w.mu.Unlock()
	if overflow {
		return nil, false
	}
	out := map[string]int{}
	for path, made := range pending {
		if !exts[strings.ToLower(filepath.Ext(path))] {
			continue
		}
		fi, err := os.Lstat(path)
		switch {
		case err != nil:
			out[path] = 3
		case !fi.Mode().IsRegular():
		case made:
			out[path] = 1
		default:
			out[path] = 2
		}
	}
	return out, true
}

// close stops the watcher.
func (w *watcher) close() {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	if !w.closed {
		w.closed = true
		unix.Close(w.fd)
	}
}
