package lsp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aci-dev/aci/internal/fswatch"
)

// maxWatchDirs bounds the folders a pool watches (one inotify watch
// each): a workspace with more is scanned instead.
const maxWatchDirs = 8192

// watcher hears from the kernel which files of a workspace change, so that
// an action costs the files it changed, not a walk of the workspace
// (internal/fswatch, the sandbox's watcher too). The kernel queues the
// events as the files change; take reads them all, so what a command did
// before the action ended is known to the action.
type watcher struct {
	fw *fswatch.Watcher
	mu sync.Mutex
	// pending are the paths changed since the last take, made says the
	// path was created then (not there at the last take).
	pending  map[string]bool
	overflow bool
}

// newWatcher watches the folders of root (not hidden ones, nor
// node_modules, as the scan skips them), or fails: no inotify, too many
// folders, the person's watch limit reached.
func newWatcher(root string) (*watcher, error) {
	fw, err := fswatch.New(fswatch.Content, maxWatchDirs)
	if err != nil {
		return nil, err
	}
	w := &watcher{fw: fw, pending: map[string]bool{}}
	if err := w.addTree(root, false); err != nil {
		fw.Close()
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
		if err := w.fw.Add(path); errors.Is(err, fswatch.ErrFull) {
			w.mu.Lock()
			w.overflow = true
			w.mu.Unlock()
			return fmt.Errorf("more than %d folders, or %w", maxWatchDirs, err)
		}
		return nil // else watched, or gone, or not a folder any more
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
	var newDirs []string
	lost := w.fw.Read(func(e fswatch.Event) {
		if e.Dir {
			if e.Made && !skipDir(filepath.Base(e.Path)) {
				newDirs = append(newDirs, e.Path)
			}
			// A folder moved away or removed: its files went with it;
			// the servers hear of the open ones through their windows.
			return
		}
		w.mu.Lock()
		w.note(e.Path, e.Made)
		w.mu.Unlock()
	})
	if lost {
		w.mu.Lock()
		w.overflow = true
		w.mu.Unlock()
	}
	for _, d := range newDirs {
		_ = w.addTree(d, true)
	}
}

// take hands over the changes since the last take, of files with the
// extensions exts, as LSP FileChangeTypes; ok is false after an overflow
// (the changes are not all known: the caller scans instead).
func (w *watcher) take(exts map[string]bool) (map[string]int, bool) {
	w.drain()
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
func (w *watcher) close() { w.fw.Close() }
