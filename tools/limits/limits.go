// Package limits bounds what one command (or background task) may use:
// memory, number of processes, and the size of any file it writes, so
// that a memory balloon, a fork flood or a terabyte file stops the command
// and not the machine. Where aci can make cgroups (a delegated cgroup v2,
// or any hierarchy it may write, as root), each command gets its own,
// which bounds the command's whole process tree; elsewhere rlimits bound
// each process. The file size is always an rlimit (cgroups have none).
// Nothing of the command runs unbounded: either a short re-execution of
// aci (the helper) sets them just before the command runs (Start), or the
// caller holds the command's first process and Run.Apply bounds it before
// it runs anything (StartStopped: the session's sandbox).
package limits

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/aci-dev/aci/tools/settings"
)

// Values are the limits of one command; 0 leaves one unbounded.
type Values struct {
	MemoryMB   int64
	Processes  int64
	FileSizeMB int64
}

// Defaults leave the machine usable while a command misbehaves, and
// scale with it:
//   - memory: half of the machine's, and never more than all of it but
//     2 GiB, at least 512 MB. On an 8 GB laptop a command gets 4 GB and
//     the person's desktop, browser and editor keep the other half; on 4
//     GB, 2 GB each. A link step or a test suite fits; a balloon is ended
//     by the kernel at the limit, before the machine swaps.
//   - processes: 128 per core, between 256 and 4096. The limit counts
//     threads too (a JVM or a browser holds dozens): a parallel build on
//     2 cores stays well under 256 tasks, while a fork flood reaches it
//     in a fraction of a second, and is then ended whole (watch_linux.go)
//     rather than left holding its processes until its timeout.
//   - files up to 32 GiB: beyond any build artifact or test fixture;
//     raise it to build disk images.
//
// The machine is what aci may use: the memory of the cgroup it runs in
// when that is less than the machine's (a container), and the cores its
// Go runtime was given (which follows a cgroup's CPU quota).
func Defaults() Values {
	mem := memTotalMB()
	if c := cgroupMemMB(); c > 0 && (mem == 0 || c < mem) {
		mem = c
	}
	return defaultsFor(mem, min(runtime.NumCPU(), runtime.GOMAXPROCS(0)))
}

// defaultsFor is Defaults for a machine of totalMB memory (0: unknown)
// and cores.
func defaultsFor(totalMB int64, cores int) Values {
	mem := int64(4096)
	if totalMB > 0 {
		mem = max(min(totalMB/2, totalMB-2048), 512)
	}
	procs := min(max(128*int64(cores), 256), 4096)
	return Values{MemoryMB: mem, Processes: procs, FileSizeMB: 32 * 1024}
}

// FromSettings is the defaults, replaced by the person's settings and
// then lowered by the workspace's.
func FromSettings(s settings.Settings) Values {
	v := Defaults()
	u := s.Limits
	if u.MemoryMB > 0 {
		v.MemoryMB = u.MemoryMB
	}
	if u.Processes > 0 {
		v.Processes = u.Processes
	}
	if u.FileSizeMB > 0 {
		v.FileSizeMB = u.FileSizeMB
	}
	t := settings.Limits{MemoryMB: v.MemoryMB, Processes: v.Processes, FileSizeMB: v.FileSizeMB}.Tighten(s.WorkspaceLimits)
	return Values{MemoryMB: t.MemoryMB, Processes: t.Processes, FileSizeMB: t.FileSizeMB}
}

// String lists the limits for a person.
func (v Values) String() string {
	return fmt.Sprintf("memory %d MB, %d processes, files up to %d MB", v.MemoryMB, v.Processes, v.FileSizeMB)
}

// memTotalMB reads MemTotal from /proc/meminfo; 0 when it cannot.
func memTotalMB() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb / 1024
			}
		}
	}
	return 0
}

// Mechanism is how the limits are applied.
type Mechanism string

// The mechanisms.
const (
	CgroupV2 Mechanism = "cgroup v2"
	CgroupV1 Mechanism = "cgroup v1"
	Rlimits  Mechanism = "rlimits"
	Off      Mechanism = "none"
)

// Limiter applies one set of limits to the commands of the process.
type Limiter struct {
	values Values
	mech   Mechanism
	cg     *cgroups // nil unless mech is a cgroup
	nproc  int64    // RLIMIT_NPROC to set in rlimit mode
}

var process struct {
	sync.Mutex
	l *Limiter
}

// Configure sets the process's limits and finds how to apply them; it
// returns a line for aci to say once at start.
func Configure(v Values) string { return configure(v, true) }

// ConfigureRlimits is Configure with rlimits even where cgroups would do:
// for tests of the fallback.
func ConfigureRlimits(v Values) string { return configure(v, false) }

// ConfigureOff runs commands without limits: for benchmarks of what the
// limits cost.
func ConfigureOff() {
	process.Lock()
	process.l = &Limiter{mech: Off}
	process.Unlock()
}

func configure(v Values, cgroups bool) string {
	l := newLimiter(v, cgroups)
	process.Lock()
	process.l = l
	process.Unlock()
	return l.Describe()
}

// Current is the process's Limiter: the defaults until Configure.
func Current() *Limiter {
	process.Lock()
	defer process.Unlock()
	if process.l == nil {
		process.l = newLimiter(Defaults(), true)
	}
	return process.l
}

// Values are the limits applied.
func (l *Limiter) Values() Values { return l.values }

// Mechanism is how they are applied.
func (l *Limiter) Mechanism() Mechanism { return l.mech }

// Describe says in one line what bounds each command, and how.
func (l *Limiter) Describe() string {
	switch l.mech {
	case CgroupV1, CgroupV2:
		return "each command is limited to " + l.values.String() + " (" + string(l.mech) + ")"
	case Rlimits:
		return "each command is limited to " + l.values.String() + " (rlimits: memory and processes are counted per process and per user, not per command; no writable cgroup here)"
	}
	return "commands run without resource limits on this system"
}
