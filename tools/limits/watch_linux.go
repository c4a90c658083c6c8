//go:build linux

package limits

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// endFlood kills, with forking shut off, every process of a command's
// cgroups but the first (the helper, or bwrap, which aci started): that
// one reaps the others (a subreaper, or the pid namespace's end) and then
// ends by itself, as the command has. Killing it too would leave the
// others' zombies to a parent that may never reap them, still counted in
// the cgroup that the next command reuses. dirs' last is the pids
// cgroup; the limit is put back at the end.
func endFlood(dirs []string, limit int64) {
	pids := dirs[len(dirs)-1]
	os.WriteFile(filepath.Join(pids, "pids.max"), []byte("0"), 0)
	defer writeLimit(pids, "pids.max", limit)
	for range 200 {
		var all []int
		for _, d := range dirs {
			all = append(all, cgroupPids(d)...)
		}
		first, firstStart := 0, uint64(0)
		for _, p := range all {
			if st, ok := procStart(p); ok && (first == 0 || st < firstStart) {
				first, firstStart = p, st
			}
		}
		left := 0
		for _, p := range all {
			if p != first {
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

// procStart is when process pid started (clock ticks since boot).
func procStart(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 { // state is field 3 of stat, starttime field 22
		return 0, false
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return n, err == nil
}
