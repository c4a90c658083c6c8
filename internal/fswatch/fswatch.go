// Package fswatch hears from the kernel which entries of a set of
// folders change, so that keeping up with a workspace costs what changed
// in it, not a look at all of it. It is the one watcher of aci: the
// language servers' change detection (tools/lsp) and the sandbox's index
// of protected and secret files (tools/sandbox) both use it.
//
// The kernel queues an event as the change is made, before the call that
// made it returns: whatever a command did before it ended is in the queue
// when aci reads it after. What the queue cannot hold is lost, and said
// (Read's lost): the caller then looks at everything, as it does where
// there is no watcher at all (New fails: no inotify, or the person's
// limit on watches reached).
package fswatch

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// Mask chooses what a Watcher hears of.
type Mask int

const (
	// Entries are entries made, removed and renamed in a folder.
	Entries Mask = 1 << iota
	// Content adds the changes to a file's content and attributes.
	Content
)

// Event is one change in a watched folder.
type Event struct {
	Path string // the entry: the folder's path and the entry's name
	Dir  bool   // the entry is a folder
	Made bool   // made, or moved in
	Gone bool   // removed, or moved away
}

// ErrFull says a folder could not be watched for want of room: the
// watcher's bound, or the person's limit on watches
// (fs.inotify.max_user_watches). What is not watched is not heard of: the
// caller looks instead.
var ErrFull = errors.New("no room for another watch")

// QueueLimit is how many events the kernel queues for a watcher before
// it loses the rest (fs.inotify.max_queued_events); 0 where there is no
// such queue.
func QueueLimit() int {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 16384
	}
	return n
}
