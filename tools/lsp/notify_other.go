//go:build !linux

package lsp

import "errors"

// watcher is not available here: changes are found by scans.
type watcher struct{}

func newWatcher(string) (*watcher, error) {
	return nil, errors.New("no change notification on this system")
}

func (w *watcher) take(map[string]bool) (map[string]int, bool) { return nil, false }

func (w *watcher) close() {}
