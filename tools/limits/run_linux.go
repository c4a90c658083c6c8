//go:build linux

package limits

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

func newLimiter(v Values, useCgroups bool) *Limiter {
	l := &Limiter{values: v, mech: Rlimits}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		l.mech = Off // the helper cannot be started
		return l
	}
	if cg, err := findCgroups(); useCgroups && err == nil {
		l.cg = cg
		l.mech = CgroupV1
		if cg.v2 {
			l.mech = CgroupV2
		}
		registerCleanup(cg)
		return l
	}
	// RLIMIT_NPROC counts every process of the user (root is not held by
	// it at all): allow the processes already running, so the limit is
	// about what one command adds.
	if v.Processes > 0 {
		l.nproc = v.Processes + int64(userProcesses())
	}
	return l
}

// userProcesses counts the processes of this user.
func userProcesses() int {
	ents, _ := os.ReadDir("/proc")
	uid, n := uint32(os.Getuid()), 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if fi, err := os.Stat("/proc/" + e.Name()); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == uid {
				n++
			}
		}
	}
	return n
}

// Run is one command's limits, from Start to Close.
type Run struct {
	l    *Limiter
	argv []string
	spec spec     // what bounds the command
	dirs []string // the command's cgroups
	// the cgroups' counters when the command started (they may be reused)
	oom, forks int64
	watch      *forkWatch // ends a fork flood at once (watch_linux.go)
}

// Start returns the Run that applies the limits to argv. reap asks the
// helper to stay as a subreaper that ends what the command leaves behind
// (where no pid namespace does it); it then creates leftFile (if not "")
// when there was something to end.
func (l *Limiter) Start(argv []string, reap bool, leftFile string) (*Run, error) {
	r, s, err := l.prepare(argv)
	if err != nil || l == nil || l.mech == Off {
		return r, err
	}
	s.Reap, s.Left = reap, leftFile
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	r.argv = append([]string{"/proc/self/exe", helperMarker, string(b), "--"}, argv...)
	return r, nil
}

// prepare makes the command's cgroups (or reuses idle ones) and says what
// the limits are.
func (l *Limiter) prepare(argv []string) (*Run, spec, error) {
	r := &Run{l: l, argv: argv}
	if l == nil || l.mech == Off {
		return r, spec{}, nil
	}
	s := spec{FSize: l.values.FileSizeMB << 20}
	if l.cg != nil {
		dirs, err := l.cg.command(l.values)
		if err != nil {
			removeCgroups(dirs)
			return nil, s, fmt.Errorf("limit command: %w", err)
		}
		r.dirs, s.Cgroups = dirs, dirs
		r.oom, r.forks = l.cg.oomKills(dirs), l.cg.forkRefusals(dirs)
		r.watchForks()
	} else {
		s.Data, s.NProc = l.values.MemoryMB<<20, l.nproc
	}
	r.spec = s
	return r, s, nil
}

// StartStopped returns the Run for a command that the caller starts
// itself and holds before it runs anything (a sandbox whose first process
// waits to be told): Apply then bounds that process, and what it starts
// inherits the bounds. No re-execution of aci is needed.
func (l *Limiter) StartStopped() (*Run, error) {
	r, _, err := l.prepare(nil)
	return r, err
}

// Applies reports whether Apply has anything to do.
func (r *Run) Applies() bool { return r != nil && r.l != nil && r.l.mech != Off }

// Apply moves process pid into the command's cgroups and sets its
// rlimits, never above what it has (see helperMain). pid must not have
// started the command yet: its children inherit both.
func (r *Run) Apply(pid int) error {
	if !r.Applies() {
		return nil
	}
	p := []byte(strconv.Itoa(pid))
	for _, d := range r.spec.Cgroups {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), p, 0); err != nil {
			return fmt.Errorf("join cgroup: %w", err)
		}
	}
	for _, l := range r.spec.rlimits() {
		lim := unix.Rlimit{Cur: uint64(l.n), Max: uint64(l.n)}
		var old unix.Rlimit
		if unix.Prlimit(pid, l.res, nil, &old) == nil && old.Max < lim.Max {
			lim = unix.Rlimit{Cur: old.Max, Max: old.Max}
		}
		if err := unix.Prlimit(pid, l.res, &lim, nil); err != nil {
			return fmt.Errorf("setrlimit: %w", err)
		}
	}
	return nil
}

// Argv is the command line to run.
func (r *Run) Argv() []string { return r.argv }

// Close ends whatever is left in the command's cgroups and gives them
// back for another command. It does not wait: the last processes (a pid
// namespace being torn down) may take a moment to go.
func (r *Run) Close() {
	r.stopWatch()
	if r.dirs != nil {
		cg, dirs := r.l.cg, r.dirs
		cg.pending.Add(1)
		go func() {
			defer cg.pending.Done()
			cg.release(dirs)
		}()
	}
	r.dirs = nil
}

// Stopped says which limit stopped the command, with its value, or "".
// Call it before Close. With cgroups the kernel's counters say; with
// rlimits (and for the file size always) the exit status and the error
// messages do.
func (r *Run) Stopped(exitCode int, output string) string {
	if r == nil || r.l == nil || r.l.mech == Off {
		return ""
	}
	v := r.l.values
	if r.dirs != nil {
		if r.l.cg.oomKills(r.dirs) > r.oom {
			return fmt.Sprintf("the memory limit (%d MB for the command and everything it started): the kernel ended a process that went over it", v.MemoryMB)
		}
		if r.l.cg.forkRefusals(r.dirs) > r.forks {
			return fmt.Sprintf("the process limit (%d processes for the command and everything it started): starting more was refused, and the command was ended", v.Processes)
		}
	}
	if exitCode == 0 {
		return ""
	}
	fsize := fmt.Sprintf("the file size limit (%d MB per file): a write past it was refused", v.FileSizeMB)
	if exitCode == 128+int(syscall.SIGXFSZ) || strings.Contains(output, "File too large") || strings.Contains(output, "File size limit exceeded") {
		return fsize
	}
	if r.dirs != nil {
		return ""
	}
	for _, w := range []string{"Cannot allocate memory", "MemoryError", "out of memory", "std::bad_alloc", "cannot allocate memory"} {
		if strings.Contains(output, w) {
			return fmt.Sprintf("likely the memory limit (%d MB per process): an allocation past it was refused", v.MemoryMB)
		}
	}
	if strings.Contains(output, "Resource temporarily unavailable") && (strings.Contains(output, "fork") || strings.Contains(output, "BlockingIOError")) {
		return fmt.Sprintf("likely the process limit (about %d processes): starting more was refused", v.Processes)
	}
	return ""
}

var cleanups struct {
	sync.Mutex
	list []*cgroups
}

func registerCleanup(cg *cgroups) {
	cleanups.Lock()
	cleanups.list = append(cleanups.list, cg)
	cleanups.Unlock()
}

// Cleanup removes aci's cgroup folders; aci calls it at exit, once its
// commands have ended.
func Cleanup() {
	cleanups.Lock()
	defer cleanups.Unlock()
	for _, cg := range cleanups.list {
		cg.remove()
	}
	cleanups.list = nil
}
