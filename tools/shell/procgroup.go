package shell

// Ending a command's process group, telling when it is gone, and what
// is done once the command ended.

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

// finish waits for bash to exit and the output to drain. Output still held
// open by a process outside the group is cut off after drainGrace.
func (p *shellProc) finish() {
	<-p.exited
	p.once.Do(func() {
		t := time.NewTimer(drainGrace)
		defer t.Stop()
		select {
		case <-p.readDone:
		case <-t.C:
			p.r.SetReadDeadline(time.Now()) // unblocks the pending Read
			<-p.readDone
		}
		p.r.Close()
		if p.served != nil {
			p.served.Close()
			p.denied = p.served.Denied()
		}
		p.link.Close()
	})
}

// limitHit says which resource limit stopped the command, then ends what
// is left of it and gives back its cgroups and stand-ins; call it once,
// after finish.
func (p *shellProc) limitHit(output string) string {
	why := p.run.Stopped(p.exitCode(), output)
	p.run.Close()
	if p.releasing != nil {
		p.created = <-p.releasing
	} else {
		p.created = p.release()
	}
	return why
}

// releaseNow gives back what the sandbox set up for the command, in the
// background, once it exited in its own pid namespace: nothing it started
// is left then (the kernel ended them with the namespace before bwrap
// could exit), so the look at what it made need not wait for its output
// to drain and its network link to close. limitHit takes the result.
func (p *shellProc) releaseNow() {
	p.releasing = make(chan []string, 1)
	go func() { p.releasing <- p.release() }()
}

// exitCode is bash's exit status, 128+n if a signal n ended it; valid after
// exited is closed.
func (p *shellProc) exitCode() int {
	ws := p.status
	switch {
	case ws == nil:
		return -1
	case ws.Signaled():
		return 128 + int(ws.Signal())
	case ws.Exited():
		return ws.ExitStatus()
	}
	return -1
}
