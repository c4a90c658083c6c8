//go:build linux

package limits

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// cgroups are the folders under which each command gets its own cgroup:
// one for v2, one per controller (memory, pids) for v1. They are made
// once, as aci-PID below aci's own cgroup, and removed at exit (Cleanup).
type cgroups struct {
	v2   bool
	mem  string // v2: the one folder
	pids string // v1 only

	// idle are command cgroups whose command ended with nothing left in
	// them: the next command reuses one (making and removing a cgroup
	// costs more than the rest of the limits). Their counters are read
	// against the values they had when the command started.
	mu      sync.Mutex
	idle    [][]string
	pending sync.WaitGroup // releases under way
}

// cgroupSeq names command cgroups uniquely within the process.
var cgroupSeq atomic.Int64

// findCgroups makes aci's cgroup folders where the machine lets it, and
// reports why not otherwise.
func findCgroups() (*cgroups, error) {
	mounts, err := cgroupMounts()
	if err != nil {
		return nil, err
	}
	own, err := ownCgroups()
	if err != nil {
		return nil, err
	}
	if v2, ok := mounts[""]; ok {
		if cg, err := v2Cgroups(filepath.Join(v2, own[""])); err == nil {
			return cg, nil
		}
	}
	mem, okm := mounts["memory"]
	pids, okp := mounts["pids"]
	if !okm || !okp {
		return nil, errors.New("no cgroup with the memory and pids controllers")
	}
	cg := &cgroups{mem: filepath.Join(mem, own["memory"], baseName()), pids: filepath.Join(pids, own["pids"], baseName())}
	for _, d := range []string{cg.mem, cg.pids} {
		removeStale(filepath.Dir(d))
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("cgroup v1: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(cg.pids, "pids.max"), []byte("max"), 0); err != nil {
		cg.remove()
		return nil, fmt.Errorf("cgroup v1: %w", err)
	}
	return cg, nil
}

// v2Cgroups uses a cgroup v2 folder aci may write (a delegated one). The
// rule that a cgroup with processes cannot hand controllers to children
// means aci first moves itself into a leaf, which it does only when it is
// the folder's only process (a cgroup it was given).
func v2Cgroups(own string) (*cgroups, error) {
	ctl, err := os.ReadFile(filepath.Join(own, "cgroup.controllers"))
	if err != nil || !strings.Contains(" "+string(ctl)+" ", " memory ") || !strings.Contains(string(ctl), "pids") {
		return nil, errors.New("cgroup v2: memory and pids not delegated")
	}
	procs, err := os.ReadFile(filepath.Join(own, "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	if f := strings.Fields(string(procs)); len(f) != 1 || f[0] != strconv.Itoa(os.Getpid()) {
		return nil, errors.New("cgroup v2: aci's cgroup holds other processes")
	}
	removeStale(own)
	base := filepath.Join(own, baseName())
	self := filepath.Join(base, "aci")
	for _, d := range []string{base, self} {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(self, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
		os.Remove(self)
		os.Remove(base)
		return nil, err
	}
	for _, d := range []string{own, base} {
		if err := os.WriteFile(filepath.Join(d, "cgroup.subtree_control"), []byte("+memory +pids"), 0); err != nil {
			return nil, fmt.Errorf("cgroup v2: %w", err)
		}
	}
	return &cgroups{v2: true, mem: base}, nil
}

func baseName() string { return "aci-" + strconv.Itoa(os.Getpid()) }

// removeStale removes the cgroup folders that an aci which is gone left in
// parent (one killed before its cleanup ran). A folder whose pid is in use
// is left alone, and one with processes in it cannot be removed.
func removeStale(parent string) {
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "aci-")
		pid, err := strconv.Atoi(rest)
		if !ok || err != nil || !e.IsDir() || pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		d := filepath.Join(parent, e.Name())
		subs, _ := os.ReadDir(d)
		for _, sub := range subs {
			if sub.IsDir() {
				os.Remove(filepath.Join(d, sub.Name()))
			}
		}
		os.Remove(d)
	}
}

// cgroupMounts maps each v1 controller (and "" for v2) to its mount point.
func cgroupMounts() (map[string]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent maj:min root mountpoint opts ... - fstype source superopts
		left, right, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		lf, rf := strings.Fields(left), strings.Fields(right)
		if len(lf) < 5 || len(rf) < 3 || lf[3] != "/" {
			continue // a cgroup mounted from below its root cannot be matched with /proc/self/cgroup
		}
		switch rf[0] {
		case "cgroup2":
			out[""] = lf[4]
		case "cgroup":
			for _, o := range strings.Split(rf[2], ",") {
				if o == "memory" || o == "pids" {
					out[o] = lf[4]
				}
			}
		}
	}
	return out, sc.Err()
}

// ownCgroups maps each controller (and "" for v2) to aci's cgroup path.
func ownCgroups() (map[string]string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			out[""] = f[2]
		}
		for _, c := range strings.Split(f[1], ",") {
			out[c] = f[2]
		}
	}
	return out, nil
}

// command returns one command's cgroups with the limits: an idle one, or
// a new one.
func (c *cgroups) command(v Values) ([]string, error) {
	c.mu.Lock()
	if n := len(c.idle); n > 0 {
		dirs := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		return dirs, nil
	}
	c.mu.Unlock()
	name := "cmd-" + strconv.FormatInt(cgroupSeq.Add(1), 10)
	var dirs []string
	if c.v2 {
		d := filepath.Join(c.mem, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
		dirs = []string{d}
		err := errors.Join(writeLimit(d, "memory.max", v.MemoryMB<<20), writeLimit(d, "pids.max", v.Processes))
		if v.MemoryMB > 0 {
			os.WriteFile(filepath.Join(d, "memory.swap.max"), []byte("0"), 0) // absent without swap accounting
		}
		return dirs, err
	}
	m, p := filepath.Join(c.mem, name), filepath.Join(c.pids, name)
	for _, d := range []string{m, p} {
		if err := os.Mkdir(d, 0o755); err != nil {
			removeCgroups(dirs)
			return nil, err
		}
		dirs = append(dirs, d)
	}
	return dirs, errors.Join(writeLimit(m, "memory.limit_in_bytes", v.MemoryMB<<20), writeLimit(p, "pids.max", v.Processes))
}

func writeLimit(dir, file string, n int64) error {
	s := "max"
	if n > 0 {
		s = strconv.FormatInt(n, 10)
	} else if strings.HasPrefix(file, "memory.limit") {
		s = "-1"
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(s), 0); err != nil {
		return fmt.Errorf("set %s: %w", file, err)
	}
	return nil
}

// counter reads "key N" from a cgroup's events-like file; 0 when absent.
func counter(dir, file, key string) int64 {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// oomKills and forkRefusals read what the kernel counted for a command.
func (c *cgroups) oomKills(dirs []string) int64 {
	if c.v2 {
		return counter(dirs[0], "memory.events", "oom_kill")
	}
	return counter(dirs[0], "memory.oom_control", "oom_kill")
}

func (c *cgroups) forkRefusals(dirs []string) int64 {
	return counter(dirs[len(dirs)-1], "pids.events", "max")
}

// release kills what is left in a command's cgroups (nothing outlives a
// command) and keeps them for the next command, or removes them when
// something could not be ended.
func (c *cgroups) release(dirs []string) {
	for _, d := range dirs {
		for i := 0; ; i++ {
			pids := cgroupPids(d)
			if len(pids) == 0 {
				break
			}
			if i == 50 {
				removeCgroups(dirs)
				return
			}
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	c.mu.Lock()
	c.idle = append(c.idle, dirs)
	c.mu.Unlock()
}

// removeCgroups kills what is left in a command's cgroups (nothing
// outlives a command), then removes them.
func removeCgroups(dirs []string) {
	for _, d := range dirs {
		for range 50 {
			pids := cgroupPids(d)
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
			if os.Remove(d) == nil || errors.Is(os.Remove(d), os.ErrNotExist) {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

func cgroupPids(d string) []int {
	b, _ := os.ReadFile(filepath.Join(d, "cgroup.procs"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// remove takes away aci's own cgroup folders (empty by then).
func (c *cgroups) remove() {
	c.pending.Wait()
	c.mu.Lock()
	for _, dirs := range c.idle {
		removeCgroups(dirs)
	}
	c.idle = nil
	c.mu.Unlock()
	if c.v2 {
		// aci itself sits in base/aci: it cannot leave, and the folder
		// goes when aci's parent cgroup is cleaned up.
		return
	}
	os.Remove(c.mem)
	os.Remove(c.pids)
}
