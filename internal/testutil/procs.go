package testutil

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proc is a live process: its pid and command line (NULs as spaces).
type Proc struct {
	PID int
	Cmd string
}

func (p Proc) String() string { return fmt.Sprintf("%d: %s", p.PID, p.Cmd) }

// Procs lists the live processes whose command line holds any of
// patterns; zombies and this test process are not listed. Tests find a
// contained command's processes this way: the pids it prints are those of
// its own pid namespace.
func Procs(patterns ...string) []Proc {
	var out []Proc
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !Alive(pid) {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		line := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		for _, p := range patterns {
			if strings.Contains(line, p) {
				out = append(out, Proc{pid, line})
				break
			}
		}
	}
	return out
}

// Outlived waits up to within for every process matching patterns to
// end and returns those left (a pid namespace may take a moment to be
// torn down). It kills nothing: a pattern may match another test run's
// process on a shared machine, and the tests' sleeps end by themselves.
func Outlived(within time.Duration, patterns ...string) []Proc {
	left := Procs(patterns...)
	for end := time.Now().Add(within); len(left) > 0 && time.Now().Before(end); left = Procs(patterns...) {
		time.Sleep(50 * time.Millisecond)
	}
	return left
}

// Descendants are the pids below pid now.
func Descendants(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, ok := ProcStat(p); ok && len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// WaitPIDs reads the pid each file holds once a command has written it.
func WaitPIDs(t testing.TB, files ...string) []int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var pids []int
	for _, f := range files {
		for {
			b, _ := os.ReadFile(f)
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				pids = append(pids, pid)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never written", f)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return pids
}

// SyncBuffer is a buffer a process writes while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
