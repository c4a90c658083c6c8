//go:build linux

package limits

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The helper: aci (or a test binary) re-executes itself with helperMarker
// as argv[1]; the init below catches that before main runs, joins the
// command's cgroups, sets the rlimits, and then either execs the command
// (which keeps the pid, process group and exit status) or, where no pid
// namespace will end the command's leftovers, stays as its parent, a
// subreaper that ends every descendant once the command has ended.
const helperMarker = "__aci_limits__"

// spec is what the helper is told.
type spec struct {
	Cgroups []string `json:"cg,omitempty"`
	Data    int64    `json:"data,omitempty"`  // RLIMIT_DATA, bytes
	NProc   int64    `json:"nproc,omitempty"` // RLIMIT_NPROC
	FSize   int64    `json:"fsize,omitempty"` // RLIMIT_FSIZE, bytes
	Reap    bool     `json:"reap,omitempty"`
	// Left is a file the reaper creates when it had to end processes the
	// command left running.
	Left string `json:"left,omitempty"`
}

func init() {
	if len(os.Args) < 4 || os.Args[1] != helperMarker {
		return
	}
	// argv: exe marker spec-json -- command...
	code, err := helperMain(os.Args[2], os.Args[4:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "aci limits: %v\n", err)
	}
	os.Exit(code)
}

// rlimit is one resource limit to set.
type rlimit struct {
	res int
	n   int64
}

// rlimits are the spec's rlimits that bound something.
func (s spec) rlimits() []rlimit {
	var out []rlimit
	for _, r := range []rlimit{{unix.RLIMIT_FSIZE, s.FSize}, {unix.RLIMIT_DATA, s.Data}, {unix.RLIMIT_NPROC, s.NProc}} {
		if r.n > 0 {
			out = append(out, r)
		}
	}
	return out
}

// helperMain returns the exit code to end with; it runs nothing of argv
// unless every limit is in place.
func helperMain(specJSON string, argv []string) (int, error) {
	var s spec
	if err := json.Unmarshal([]byte(specJSON), &s); err != nil {
		return 126, fmt.Errorf("bad spec: %w", err)
	}
	if len(argv) == 0 {
		return 126, errors.New("no command")
	}
	pid := []byte(strconv.Itoa(os.Getpid()))
	for _, d := range s.Cgroups {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), pid, 0); err != nil {
			return 126, fmt.Errorf("join cgroup: %w", err)
		}
	}
	for _, r := range s.rlimits() {
		lim := unix.Rlimit{Cur: uint64(r.n), Max: uint64(r.n)}
		var old unix.Rlimit
		if unix.Getrlimit(r.res, &old) == nil && old.Max < lim.Max {
			lim = unix.Rlimit{Cur: old.Max, Max: old.Max} // never above what aci had
		}
		if err := unix.Setrlimit(r.res, &lim); err != nil {
			return 126, fmt.Errorf("setrlimit: %w", err)
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 127, err
	}
	if !s.Reap {
		return 126, syscall.Exec(path, argv, os.Environ())
	}
	return reap(path, argv, s.Left)
}

// reap runs argv as a child and, as a subreaper, ends whatever it leaves
// behind (double forks and setsid land here) when it ends, or when the
// helper is told to stop (a kill, aci exiting: SIGTERM by Pdeathsig).
func reap(path string, argv []string, leftFile string) (int, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 126, fmt.Errorf("subreaper: %w", err)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	p, err := os.StartProcess(path, argv, &os.ProcAttr{Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		return 127, err
	}
	exited := make(chan int, 1)
	go func() {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				exited <- 126
				return
			}
			if pid == p.Pid {
				code := ws.ExitStatus()
				if ws.Signaled() {
					code = 128 + int(ws.Signal())
				}
				exited <- code
				return
			}
		}
	}()
	code := 0
	select {
	case code = <-exited:
		// Orphans come back to this subreaper: with no child left there
		// is nothing to end, and no need to look through /proc.
		if _, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); err == syscall.ECHILD {
			break
		}
		if killDescendants() > 0 && leftFile != "" {
			os.WriteFile(leftFile, nil, 0o600)
		}
	case s := <-stop:
		code = 128 + int(s.(syscall.Signal))
		syscall.Kill(p.Pid, syscall.SIGKILL)
		killDescendants()
	}
	return code, nil
}

// killDescendants SIGKILLs every process below this one until none is
// left; a process killed while forking leaves children, which come back
// to this subreaper and are found on the next round.
func killDescendants() (killed int) {
	self := os.Getpid()
	for range 100 {
		kids := descendants(self)
		if len(kids) == 0 {
			break
		}
		killed += len(kids)
		for _, k := range kids {
			syscall.Kill(k, syscall.SIGKILL)
		}
		for {
			// Reap what has died; WNOHANG so a stuck child does not block.
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
	for {
		if pid, err := syscall.Wait4(-1, nil, 0, nil); pid <= 0 || err != nil {
			return killed
		}
	}
}

// descendants lists the live processes below pid, from /proc.
func descendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[n] = pp
	}
	var out []int
	for n := range parent {
		for p, hops := parent[n], 0; p != 0 && hops < 1000; p, hops = parent[p], hops+1 {
			if p == pid {
				out = append(out, n)
				break
			}
		}
	}
	return out
}
