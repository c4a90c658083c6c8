//go:build linux

package sandbox

import (
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
	procs := scanProcs()
	var roots []int
	for pid, p := range procs {
		if p.isBwrap && strings.Contains(p.cmdline, mark) {
			roots = append(roots, pid)
		}
	}
	victims := descendants(procs, roots)
	for _, v := range victims {
		syscall.Kill(v.pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(wait)
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

// scanProcs reads this user's processes from /proc.
func scanProcs() map[int]procInfo {
	out := map[int]procInfo{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		ppid, start, state, ok := procStat(pid)
		if !ok || state == "Z" {
			continue
		}
		info := procInfo{ppid: ppid, start: start}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil {
			info.cmdline = string(b)
			info.isBwrap = strings.HasSuffix(strings.SplitN(info.cmdline, "\x00", 2)[0], "bwrap")
		}
		out[pid] = info
	}
	return out
}

// procStat reads a process's parent, start time and state from
// /proc/PID/stat; ok is false for a process that is gone.
func procStat(pid int) (ppid int, start, state string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", "", false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the name may hold spaces and parens
	if i < 0 {
		return 0, "", "", false
	}
	f := strings.Fields(s[i+1:])
	// state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
	// utime stime cutime cstime priority nice threads itrealvalue starttime
	if len(f) < 20 || f[0] == "X" {
		return 0, "", "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[19], f[0], true
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
