//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
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
	dir := filepath.Join(s.tmpDir, keptDir)
	if os.MkdirAll(dir, 0o700) != nil {
		return none
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return none
	}
	// One watch on the folder: an open of a stand-in through its bind
	// mount in the workspace is reported on its folder, by name.
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_OPEN); err != nil {
		unix.Close(fd)
		return none
	}
	return func() []string {
		defer unix.Close(fd)
		seen := map[string]bool{}
		buf := make([]byte, 16<<10)
		for {
			n, err := unix.Read(fd, buf)
			if n <= 0 || err != nil {
				break
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := buf[off+unix.SizeofInotifyEvent : min(n, off+unix.SizeofInotifyEvent+int(ev.Len))]
				off += unix.SizeofInotifyEvent + int(ev.Len)
				if i := bytes.IndexByte(name, 0); i >= 0 {
					name = name[:i]
				}
				if p, ok := keptNames.Load(filepath.Join(dir, string(name))); ok {
					seen[p.(string)] = true
				}
			}
		}
		var out []string
		for p := range seen {
			out = append(out, p)
		}
		sort.Strings(out)
		return out
	}
}
