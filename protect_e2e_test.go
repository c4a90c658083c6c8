package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
)

// aci killed with SIGKILL while a contained command runs leaves the empty
// stand-ins of .env, AGENTS.md and CLAUDE.md in the workspace (bwrap can
// mount only on a path that exists); the next aci to start removes them,
// but keeps one that someone wrote to since.
func TestE2ECrashLeavesNothingBehind(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	containedOrSkip(t, work)
	os.Mkdir(filepath.Join(work, ".git"), 0o755)
	state := "XDG_STATE_HOME=" + filepath.Join(home, "state")
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
		runCall("sleep 60"),
		fakeai.Reply{Content: "done"},
	)
	cmd := exec.Command(testbin.Build(t), "-p", "wait")
	cmd.Dir = work
	cmd.Env = baseEnv(t, srv, "HOME="+home, state)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	standIns := []string{".env", "AGENTS.md", "CLAUDE.md"}
	deadline := time.Now().Add(30 * time.Second)
	for !allExist(work, standIns) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !allExist(work, standIns) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the command did not start with its stand-ins")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	for len(sleepers("sleep 60")) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	// What a person may have done meanwhile is kept.
	os.WriteFile(filepath.Join(work, "CLAUDE.md"), []byte("written by the person\n"), 0o644)

	srv2 := fakeai.New(t, fakeai.Reply{Content: "hello"})
	if r := aci(t, work, srv2, "hi", []string{"HOME=" + home, state}); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, name := range []string{".env", "AGENTS.md"} {
		if _, err := os.Lstat(filepath.Join(work, name)); err == nil {
			t.Errorf("%s is still in the workspace after the next start", name)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(work, "CLAUDE.md")); string(b) != "written by the person\n" {
		t.Errorf("CLAUDE.md = %q, want the person's", b)
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "state", "aci", "leftovers")); len(ents) != 0 {
		t.Errorf("journals left: %v", ents)
	}
}

func allExist(dir string, names []string) bool {
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}

var _ = strings.Contains
