//go:build !linux

package fswatch

import "errors"

// Watcher is not available here: callers look instead.
type Watcher struct{}

// New fails here.
func New(Mask, int) (*Watcher, error) {
	return nil, errors.New("no change notification on this system")
}

func (w *Watcher) Add(string) error             { return ErrFull }
func (w *Watcher) Watched(string) bool          { return false }
func (w *Watcher) Len() int                     { return 0 }
func (w *Watcher) Read(func(Event)) (lost bool) { return true }
func (w *Watcher) Close()                       {}
