//go:build linux

package sandbox

import (
	"bufio"
	"encoding/json"
	"github.com/aci-dev/aci/internal/dirs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// aci puts one kind of file in the real workspace for a moment: the temp
// file of an atomic write (older acis also made empty stand-ins there
// for missing protected files while a command ran; their journals may
// still name some). A killed aci cannot remove them. So each is written
// down in a journal in aci's state folder as soon as it exists, and
// struck off once removed. The journal is locked (flock) by its process while it lives;
// the next aci to start sweeps the journals nobody holds and removes each
// file still as aci left it: same inode, and for a stand-in still empty.
// A file someone wrote to or replaced since is kept. Contained commands
// cannot read or change the state folder (it is hidden from them).

// leftKind says what a journal entry is.
const (
	leftStandIn = "stand-in"
	leftTemp    = "temp"
)

// leftEntry is one line of a journal: Gone strikes an earlier line off.
type leftEntry struct {
	Path string `json:"path"`
	Kind string `json:"kind,omitempty"`
	Ino  uint64 `json:"ino,omitempty"`
	// Ctime (ns) tells a stand-in from a new file that got its inode
	// number back; a temp file's changes as it is written, so it has none.
	Ctime int64 `json:"ctime,omitempty"`
	Dir   bool  `json:"dir,omitempty"`
	Gone  bool  `json:"gone,omitempty"`
	Until int64 `json:"-"` // a watched name's: when its aci was last known alive (protect_watch.go)
}

type leftJournal struct {
	mu   sync.Mutex
	f    *os.File // nil until the first entry; locked while aci lives
	live map[string]bool
	err  bool // the journal could not be made: entries are not kept
	// closed: its Sandbox is closed; nothing more is written.
	closed bool
}

// close lets go of the journal: removed when nothing in it is left to
// undo, else left (unlocked) for the next aci's sweep.
func (j *leftJournal) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	if j.f == nil {
		return
	}
	if len(j.live) == 0 {
		os.Remove(j.f.Name())
	}
	j.f.Close()
	j.f = nil
}

// aciJournal is the process's, for aci's own temp files (NoteTemp); each
// Sandbox has its own for what its commands may leave (protect_watch.go).
var aciJournal leftJournal

// journalDir is $XDG_STATE_HOME/aci/leftovers (or ~/.local/state/...).
func journalDir() string {
	return dirs.StateFile("leftovers")
}

// write appends e to the journal, making (and locking) it at the first
// entry. It reports whether the entry is kept.
func (j *leftJournal) write(e leftEntry) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil && !j.err && !j.closed {
		j.f = openJournal()
		j.err = j.f == nil
	}
	if j.f == nil {
		return false
	}
	if j.live == nil {
		j.live = map[string]bool{}
	}
	if e.Gone {
		delete(j.live, e.Path)
		// Nothing left to undo: start the journal again rather than let
		// it grow over a long session.
		if len(j.live) == 0 && j.f.Truncate(0) == nil {
			return true
		}
	} else {
		j.live[e.Path] = true
	}
	b, _ := json.Marshal(e)
	_, err := j.f.Write(append(b, '\n'))
	return err == nil
}

// openJournal makes this process's journal and locks it; nil when the
// state folder cannot be written (stand-ins are then still removed when a
// command ends, just not after a crash).
func openJournal() *os.File {
	dir := journalDir()
	if dir == "" || os.MkdirAll(dir, 0o700) != nil {
		return nil
	}
	name := filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		os.Remove(name)
		return nil
	}
	return f
}

// inode of path, 0 when it cannot be read.
func inode(path string) uint64 {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// dropStandIn removes a grant's mount point (grantStubs) once no running
// command uses it, unless something wrote to it meanwhile.
func dropStandIn(path string) {
	removeLeftover(leftEntry{Path: path, Kind: leftStandIn})
}

// NoteTemp writes down a temp file aci just made in the workspace (an
// atomic write's); done strikes it off once it was renamed into place or
// removed.
func NoteTemp(path string) (done func()) {
	sealed := sealAciWrite(path) // the seal takes aci's own write as it is (seal.go)
	ino := inode(path)
	if ino == 0 || !aciJournal.write(leftEntry{Path: path, Kind: leftTemp, Ino: ino}) {
		return sealed
	}
	var once sync.Once
	return func() { once.Do(func() { aciJournal.write(leftEntry{Path: path, Gone: true}); sealed() }) }
}

// removeLeftover removes e.Path if it is still what aci left there: the
// same inode, and for a stand-in an empty file or folder.
func removeLeftover(e leftEntry) {
	fi, err := os.Lstat(e.Path)
	if err != nil {
		return
	}
	if e.Kind == leftWatch {
		moveWatched(e, fi)
		return
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && e.Ino != 0 && st.Ino != e.Ino {
		return
	}
	if e.Ctime != 0 && ctime(fi).UnixNano() != e.Ctime {
		return // replaced by a file that got the same inode number, or changed
	}
	switch {
	case e.Kind == leftTemp:
		if e.Ino != 0 && fi.Mode().IsRegular() {
			os.Remove(e.Path)
		}
	case fi.Mode().IsRegular() && fi.Size() == 0:
		os.Remove(e.Path)
	case fi.IsDir():
		os.Remove(e.Path) // fails unless empty
	}
}

var sweepOnce sync.Once

// SweepLeftovers removes what killed acis left in workspaces (see above):
// once per process, at its start.
func SweepLeftovers() { sweepOnce.Do(sweepLeftovers) }

func sweepLeftovers() {
	dir := journalDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close() // its aci is alive
			continue
		}
		for _, le := range replayJournal(f) {
			removeLeftover(le)
		}
		os.Remove(p)
		f.Close()
	}
}

// replayJournal is what a journal says was left: entries not struck off.
// A stand-in written down before it was made (no inode yet) is taken only
// if it is an empty file made no later than the journal's last write.
func replayJournal(f *os.File) []leftEntry {
	live := map[string]leftEntry{}
	var order []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e leftEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Path == "" || !filepath.IsAbs(e.Path) {
			continue // a line cut by the crash
		}
		if e.Gone {
			delete(live, e.Path)
			continue
		}
		if _, ok := live[e.Path]; !ok {
			order = append(order, e.Path)
		}
		live[e.Path] = e
	}
	var last time.Time
	if fi, err := f.Stat(); err == nil {
		last = fi.ModTime()
	}
	var out []leftEntry
	for _, p := range order {
		e, ok := live[p]
		if !ok {
			continue
		}
		if e.Kind == leftWatch {
			e.Until = last.Add(watchEvery + 2*time.Second).UnixNano()
		} else if e.Ino == 0 {
			fi, err := os.Lstat(p)
			if err != nil || changedAfter(fi, last.Add(2*time.Second)) {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// changedAfter reports whether fi's status changed after t.
func changedAfter(fi os.FileInfo, t time.Time) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	return time.Unix(st.Ctim.Sec, st.Ctim.Nsec).After(t)
}
