package shell

// Ending a command's process group, and telling when it is gone.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// killGroup ends every process of the group: SIGTERM so they may clean up,
// SIGKILL for those still there after termGrace. It returns once no live
// process is left in the group, so nothing started by the command outlives
// it (except processes that left the group on purpose, like daemons).
func (p *shellProc) killGroup() error {
	if syscall.Kill(-p.pgid, syscall.SIGTERM) != nil {
		return nil // nobody left in the group
	}
	if waitGroupGone(p.pgid, termGrace) {
		return nil
	}
	syscall.Kill(-p.pgid, syscall.SIGKILL)
	if !waitGroupGone(p.pgid, killWait) {
		return fmt.Errorf("process group %d still alive after SIGKILL", p.pgid)
	}
	return nil
}

// waitGroupGone polls until process group pgid has no live member or d has
// passed, and reports which.
func waitGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for delay := time.Millisecond; ; delay = min(2*delay, 20*time.Millisecond) {
		if !groupAlive(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(delay)
	}
}

// groupAlive reports whether a process of group pgid is still running.
// Zombies do not count: they run nothing, and orphans may stay zombies for a
// while where the init process reaps slowly (containers). Without /proc it
// asks the kernel, which counts zombies too.
func groupAlive(pgid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		if st, pg, ok := parseProcStat(string(b)); ok && pg == pgid && st != 'Z' && st != 'X' {
			return true
		}
	}
	return false
}

// parseProcStat reads state and process group from /proc/PID/stat:
// "pid (comm) state ppid pgrp ...", where comm may hold spaces and parens.
func parseProcStat(s string) (state byte, pgrp int, ok bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 || len(f[0]) == 0 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}
