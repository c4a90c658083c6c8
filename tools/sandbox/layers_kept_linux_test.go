//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A write a command makes in a cache is kept in the workspace's layer of
// that cache: seen by the commands of the workspace's next session, never
// by the person's folder, nor by a session of another workspace; a
// session started while another holds the layer gets one of its own.
func TestKeptLayerSeenByNextSessionOnly(t *testing.T) {
	h := newHomeTree(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(filepath.Dir(h.home), "state"))
	t.Cleanup(func() { removeTree(filepath.Join(filepath.Dir(h.home), "state")) })
	planted := filepath.Join(h.home, ".cache/pre-commit/kept")
	write := []string{"sh", "-c", "printf session-1 > " + planted}
	read := []string{"sh", "-c", "cat " + planted + " 2>/dev/null; echo ."}
	p := DefaultPolicy(h.ws)

	s1 := mustSandbox(t, p, Bwrap)
	if out, code, ok := spawnIn(t, s1, h.ws, write...); !ok || code != 0 {
		t.Fatalf("session 1 could not write its cache: ok %v exit %d %s (%v)", ok, code, out, s1.sessErr)
	}
	// Meanwhile, a second session of the workspace: the layer is held,
	// it gets its own.
	s2 := mustSandbox(t, p, Bwrap)
	if out, _, _ := spawnIn(t, s2, h.ws, read...); out != ".\n" {
		t.Errorf("a concurrent session read %q through a layer mounted twice", out)
	}
	if out, code, _ := spawnIn(t, s2, h.ws, "sh", "-c", "printf session-2 > "+planted); code != 0 {
		t.Errorf("the concurrent session could not write its own layer: %s", out)
	}
	s2.Close()
	s1.Close()
	cleanupForTest()
	waitLayersFree(t, filepath.Join(filepath.Dir(h.home), "state", "aci", "layers"))

	if _, err := os.Stat(planted); err == nil {
		t.Fatalf("the write reached the person's cache")
	}
	s3 := mustSandbox(t, p, Bwrap)
	if out, _, _ := spawnIn(t, s3, h.ws, read...); out != "session-1.\n" {
		t.Errorf("the next session reads %q, want session 1's write", out)
	}
	s3.Close()
	cleanupForTest()

	other := filepath.Join(filepath.Dir(h.home), "other")
	os.MkdirAll(other, 0o755)
	s4 := mustSandbox(t, DefaultPolicy(other), Bwrap)
	if out, _, _ := spawnIn(t, s4, other, read...); out != ".\n" {
		t.Errorf("another workspace's session reads %q", out)
	}
	s4.Close()
	cleanupForTest()
	if _, err := os.Stat(planted); err == nil {
		t.Errorf("the write reached the person's cache")
	}
	checkHome(t, h)
}

// waitLayersFree waits until no session holds a kept layer of base (a
// session's lock goes once its bwrap has been waited for).
func waitLayersFree(t *testing.T, base string) {
	t.Helper()
	locks, _ := filepath.Glob(filepath.Join(base, "*.lock"))
	if len(locks) == 0 {
		t.Fatalf("no kept layer in %s", base)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, l := range locks {
		f, err := os.Open(l)
		if err != nil {
			t.Fatal(err)
		}
		for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			if time.Now().After(deadline) {
				t.Fatalf("%s still held after the sessions ended", l)
			}
			time.Sleep(20 * time.Millisecond)
		}
		f.Close()
	}
}
