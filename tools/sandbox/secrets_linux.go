//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// keptArgs covers each kept-back secret file with its empty read-only
// stand-in (/dev/null where the session has no folder): the command
// reads nothing from it, and can neither write, remove nor rename it.
func keptArgs(out []string, p Policy) []string {
	for _, k := range p.Kept {
		src := keptSource(p.PrivateTmp, k)
		if src == "" {
			src = "/dev/null"
		}
		out = append(out, "--ro-bind", src, k)
	}
	return out
}

// keptWatch is a Sandbox's one inotify watch on its stand-ins' folder,
// kept open for the session: closing an inotify descriptor waits for the
// kernel's RCU grace period (some 10 ms), too long to pay per command.
type keptWatch struct {
	mu     sync.Mutex
	fd     int // -1 once closed
	dir    string
	kept   *keptState // whose stand-ins
	base   int        // events forgotten before evs[0]
	evs    []string   // files opened, in order, since nothing ran
	active int        // commands watching
}

// WatchKept starts watching the stand-ins of the kept-back secret files
// for a command about to start; done, called once it ended, lists the
// files it tried to read (sorted), so that its result can say which file
// aci kept back and how to ask for it. Another command running at the
// same time may be counted as this one's. A watch that cannot be set up
// reports nothing.
func (s *Sandbox) WatchKept() (done func() []string) {
	none := func() []string { return nil }
	if s.Kind() != Bwrap || s.privateTmp() == "" {
		return none
	}
	w := s.keptWatch()
	if w == nil {
		return none
	}
	w.mu.Lock()
	w.drainLocked() // before this command: not its doing
	mark := w.base + len(w.evs)
	w.active++
	w.mu.Unlock()
	var once sync.Once
	var out []string
	return func() []string {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.drainLocked()
			seen := map[string]bool{}
			for _, p := range w.evs[mark-w.base:] {
				if !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
			}
			if w.active--; w.active == 0 {
				w.base += len(w.evs)
				w.evs = nil
			}
			sort.Strings(out)
		})
		return out
	}
}

// keptWatch is s's watch, made at first use; nil when it cannot be.
func (s *Sandbox) keptWatch() *keptWatch {
	k := &s.side.kept
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.watch != nil || k.noWatch {
		return k.watch
	}
	k.noWatch = true // unless made now
	dir := filepath.Join(s.tmpDir, keptDir)
	if os.MkdirAll(dir, 0o700) != nil {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	// One watch on the folder: an open of a stand-in through its bind
	// mount in the workspace is reported on its folder, by name.
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_OPEN); err != nil {
		unix.Close(fd)
		return nil
	}
	k.watch, k.noWatch = &keptWatch{fd: fd, dir: dir, kept: k}, false
	return k.watch
}

// close stops the watch (Close).
func (w *keptWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
}

// drainLocked reads the events waiting, keeping the files opened.
func (w *keptWatch) drainLocked() {
	if w.fd < 0 {
		return
	}
	buf := make([]byte, 16<<10)
	for {
		n, err := unix.Read(w.fd, buf)
		if n <= 0 || err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : min(n, off+unix.SizeofInotifyEvent+int(ev.Len))]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if p, ok := w.kept.nameOf(filepath.Join(w.dir, string(name))); ok {
				w.evs = append(w.evs, p)
			}
		}
	}
}
