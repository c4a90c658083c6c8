//go:build linux

package limits

import (
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A fork flood that reaches the process limit keeps the processes it has
// and goes on trying to fork until its timeout: the machine stays loaded
// and the result comes late. So while a command runs in a pids cgroup,
// its count of refused forks is watched, and at the first refusal the
// whole command is ended: forks are shut off first (pids.max 0), so that
// no process takes a slot a killed one frees, then every process in its
// cgroups is killed, then the limit is put back for the next command.
// The result names the limit (Stopped). A program that would have coped
// with a refused fork is ended too: at the limit, a build is failing
// anyway.

// forkPoll is how often the counter is read: a file read per command
// and period, next to nothing.
const forkPoll = 50 * time.Millisecond

type forkWatch struct {
	stop, done chan struct{}
}

// watchForks starts watching the command's refused forks.
func (r *Run) watchForks() {
	if r.dirs == nil || r.l.values.Processes <= 0 {
		return
	}
	w := &forkWatch{stop: make(chan struct{}), done: make(chan struct{})}
	r.watch = w
	cg, dirs, base, limit := r.l.cg, r.dirs, r.forks, r.l.values.Processes
	go func() {
		defer close(w.done)
		t := time.NewTicker(forkPoll)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			if cg.forkRefusals(dirs) > base {
				endFlood(dirs, limit)
				return
			}
		}
	}()
}

// stopWatch ends the watch; call it before the cgroups are given back.
func (r *Run) stopWatch() {
	if r.watch == nil {
		return
	}
	close(r.watch.stop)
	<-r.watch.done
	r.watch = nil
}

// endFlood kills every process of a command's cgroups with forking shut
// off, then restores the process limit. dirs' last is the pids cgroup.
func endFlood(dirs []string, limit int64) {
	pids := dirs[len(dirs)-1]
	os.WriteFile(filepath.Join(pids, "pids.max"), []byte("0"), 0)
	defer writeLimit(pids, "pids.max", limit)
	for range 200 {
		left := 0
		for _, d := range dirs {
			for _, p := range cgroupPids(d) {
				syscall.Kill(p, syscall.SIGKILL)
				left++
			}
		}
		if left == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
