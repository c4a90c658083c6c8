//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// reopenGate undoes Cleanup's closing of the gate, for tests that go on
// after a Cleanup (aci itself exits after it).
func reopenGate() {
	starting.Lock()
	starting.closed = false
	starting.Unlock()
}

// cleanupForTest is Cleanup for a test that goes on after it.
func cleanupForTest() {
	Cleanup()
	reopenGate()
}

// Cleanup ends the session's sandbox even while it is still starting (a
// Warm racing with exit), every bwrap of this process and what runs in
// them, and returns only once they are gone; no session starts after it.
func TestCleanupLeavesNoSandbox(t *testing.T) {
	ws := t.TempDir()
	s := mustSandbox(t, DefaultPolicy(ws), Bwrap)
	defer reopenGate()
	// A one-shot sandbox running a command, and a session warming up.
	argv, err := s.Wrap([]string{"sleep", "300"}, ws)
	if err != nil {
		t.Fatal(err)
	}
	oneShot := exec.Command(argv[0], argv[1:]...)
	if err := oneShot.Start(); err != nil {
		t.Fatal(err)
	}
	go oneShot.Wait()
	s.Warm()
	time.Sleep(time.Millisecond) // the warm-up is under way, or about to be
	Cleanup()
	mark := "/aci-session-" + strconv.Itoa(os.Getpid()) + "-"
	for pid, p := range scanProcs() {
		if p.isBwrap && strings.Contains(p.cmdline, mark) {
			t.Errorf("bwrap %d still there after Cleanup: %q", pid, p.cmdline)
		}
	}
	if _, _, ok, _ := s.Spawn(SpawnRequest{Argv: []string{"true"}}); ok {
		t.Error("a session started after Cleanup")
	}
}

// Cleanup returns whatever stage the session's start is at when it comes:
// a helper killed while the session's probe waits for its reply must end
// that wait (the probe held the lock Cleanup needs, and waited forever
// while aci kept the helper's end of their socket open).
func TestCleanupWhileTheSessionStarts(t *testing.T) {
	for _, delay := range []time.Duration{0, 5, 10, 15, 20, 25, 30, 40, 60} {
		ws := t.TempDir()
		s := mustSandbox(t, DefaultPolicy(ws), Bwrap)
		s.Warm()
		time.Sleep(delay * time.Millisecond)
		done := make(chan struct{})
		go func() { Cleanup(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("Cleanup %v after Warm has not returned in 5 s", delay*time.Millisecond)
		}
		reopenGate()
	}
}
