//go:build linux

package sandbox

import (
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// A sandbox whose aci is gone is ended by the next aci's sweep; one whose
// aci lives is left alone.
func TestKillStaleSandboxes(t *testing.T) {
	if err := probeBwrap(); err != nil {
		t.Skip(err)
	}
	dead := exec.Command("true")
	dead.Run() // its pid is free now
	start := func(owner int) *exec.Cmd {
		c := exec.Command(bwrapProbe.path, "--ro-bind", "/", "/", "--setenv", "X", "/tmp/aci-session-"+strconv.Itoa(owner)+"-x", "--", "sleep", "300")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	orphan, live := start(dead.Process.Pid), start(1)
	time.Sleep(100 * time.Millisecond)
	killStaleSandboxes()
	done := make(chan struct{})
	go func() { orphan.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Error("the sandbox of a gone aci lives on")
	}
	if live.Process.Signal(syscall.Signal(0)) != nil {
		t.Error("a live aci's sandbox was ended")
	}
}
