//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Nothing aci starts outlives it. Cleanup closes the gate first (no
// session's sandbox starts after it: a Warm or a first command racing
// with exit is refused), then ends every bwrap of this process (each names
// its session folder, /aci-session-PID-) and everything below them, and
// waits, bounded, until they are gone: a sandbox killed but not yet reaped
// on a loaded machine would otherwise still be there when aci has exited.

// starting is the gate: a session's bwrap starts under its read lock, and
// Cleanup takes its write lock to close it, so that every start that got
// through has its process by the time Cleanup looks for them.
var starting struct {
	sync.RWMutex
	closed bool
}

// enter lets a session's sandbox start; false once aci is ending. leave
// must follow a true.
func enter() bool {
	starting.RLock()
	if starting.closed {
		starting.RUnlock()
		return false
	}
	return true
}

func leave() { starting.RUnlock() }

// closeGate refuses every later start and waits for those under way.
func closeGate() {
	starting.Lock()
	starting.closed = true
	starting.Unlock()
}

// endWait bounds how long exit waits for the sandboxes to be gone.
const endWait = 3 * time.Second

// endOwnSandboxes kills the bwraps this process started and their
// descendants, and waits (up to wait) until none is left.
func endOwnSandboxes(wait time.Duration) {
	mark := "/aci-session-" + strconv.Itoa(os.Getpid()) + "-"
	deadline := time.Now().Add(wait)
	// Looked for again once those found are gone: a bwrap forks its
	// namespace's first process after starting, and a fork under way
	// while the first look ran is seen only by the next.
	for {
		procs := scanProcs()
		var roots []int
		for pid, p := range procs {
			if p.isBwrap && strings.Contains(p.cmdline, mark) {
				roots = append(roots, pid)
			}
		}
		victims := descendants(procs, roots)
		if len(victims) == 0 {
			return
		}
		for _, v := range victims {
			syscall.Kill(v.pid, syscall.SIGKILL)
		}
		for len(victims) > 0 && time.Now().Before(deadline) {
			left := victims[:0]
			for _, v := range victims {
				if alive(v) {
					left = append(left, v)
				}
			}
			victims = left
			if len(victims) > 0 {
				time.Sleep(5 * time.Millisecond)
			}
		}
		if !time.Now().Before(deadline) {
			return
		}
	}
}

// procInfo is what endOwnSandboxes needs of a process.
type procInfo struct {
	ppid    int
	start   string // its start time, which tells it from a later one with the same pid
	isBwrap bool
	cmdline string
}

type procID struct {
	pid   int
	start string
}

// scanProcs reads the machine's processes from /proc. It runs at every
// exit, so it reads each stat into one buffer and a command line only for
// a process named bwrap: a few allocations a process, not a file's worth.
func scanProcs() map[int]procInfo {
	out := map[int]procInfo{}
	d, err := os.Open("/proc")
	if err != nil {
		return out
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return out
	}
	self := os.Getpid()
	var buf [4096]byte
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		st, ok := readStat(pid, buf[:])
		if !ok || st.state == 'Z' {
			continue
		}
		info := procInfo{ppid: st.ppid, start: st.start}
		if st.comm == "bwrap" {
			if b, err := os.ReadFile("/proc/" + name + "/cmdline"); err == nil {
				info.cmdline = string(b)
				info.isBwrap = strings.HasSuffix(strings.SplitN(info.cmdline, "\x00", 2)[0], "bwrap")
			}
		}
		out[pid] = info
	}
	return out
}

// statLine is what /proc/PID/stat says that aci needs.
type statLine struct {
	comm  string
	state byte
	ppid  int
	start string // starttime, in clock ticks since boot
}

// readStat reads /proc/PID/stat into buf; ok is false for a process that
// is gone.
func readStat(pid int, buf []byte) (st statLine, ok bool) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return st, false
	}
	n, err := syscall.Read(fd, buf)
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return st, false
	}
	s := buf[:n]
	open, shut := bytes.IndexByte(s, '('), bytes.LastIndexByte(s, ')') // the name may hold spaces and parens
	if open < 0 || shut < open {
		return st, false
	}
	// state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
	// utime stime cutime cstime priority nice threads itrealvalue starttime
	var f [20][]byte
	k := 0
	for _, w := range bytes.Fields(s[shut+1:]) {
		if k == len(f) {
			break
		}
		f[k] = w
		k++
	}
	if k < len(f) || len(f[0]) != 1 || f[0][0] == 'X' {
		return st, false
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	return statLine{comm: string(s[open+1 : shut]), state: f[0][0], ppid: ppid, start: string(f[19])}, true
}

// procStat reads a process's parent, start time and state; ok is false
// for a process that is gone.
func procStat(pid int) (ppid int, start, state string, ok bool) {
	var buf [4096]byte
	st, ok := readStat(pid, buf[:])
	if !ok {
		return 0, "", "", false
	}
	return st.ppid, st.start, string(st.state), true
}

// descendants are roots and every process below them.
func descendants(procs map[int]procInfo, roots []int) []procID {
	children := map[int][]int{}
	for pid, p := range procs {
		children[p.ppid] = append(children[p.ppid], pid)
	}
	var out []procID
	seen := map[int]bool{}
	queue := append([]int{}, roots...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		out = append(out, procID{pid, procs[pid].start})
		queue = append(queue, children[pid]...)
	}
	return out
}

// alive reports whether v is still there: running, or ended but not yet
// reaped by aci (its own child, which aci's waiting reaps); another's
// zombie has ended, and its parent's end hands it to init.
func alive(v procID) bool {
	ppid, start, state, ok := procStat(v.pid)
	return ok && start == v.start && (state != "Z" || ppid == os.Getpid())
}
