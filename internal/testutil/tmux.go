package testutil

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Tmux is one pane of a private tmux server: a program driven as a person
// at a terminal drives it, keys sent, the screen read back.
type Tmux struct {
	t    testing.TB
	sock string
}

// StartTmux runs argv in dir in a new tmux server's pane of width ×
// height, with env its whole environment (env -i). The pane stays after
// the program exits, to read its status; the server ends with the test.
// Without tmux the test is skipped.
func StartTmux(t testing.TB, dir string, width, height int, env, argv []string) *Tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	x := &Tmux{t: t, sock: fmt.Sprintf("aci-test-%d-%x", os.Getpid(), rand.Uint64())}
	conf := filepath.Join(t.TempDir(), "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g history-limit 5000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := []string{"-f", conf, "new-session", "-d", "-s", "aci", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-c", dir, "env", "-i"}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", x.sock, "kill-server").Run() })
	x.Run(append(append(cmd, env...), argv...)...)
	return x
}

// Run runs a tmux command on the pane's server and returns its output.
func (x *Tmux) Run(args ...string) string {
	x.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-u", "-L", x.sock}, args...)...)
	// Not the tmux of the terminal the tests run in, if any.
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "TMUX") }), "LANG=C.UTF-8")
	out, err := cmd.CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Screen is the pane's text, scrollback included; with escapes, its
// colours and attributes as escape codes.
func (x *Tmux) Screen(escapes bool) string {
	if escapes {
		return x.Run("capture-pane", "-p", "-e", "-J", "-t", "aci", "-S", "-")
	}
	return x.Run("capture-pane", "-p", "-J", "-t", "aci", "-S", "-")
}

// WaitUntil polls the screen until ok holds; it fails the test after
// limit, showing the screen.
func (x *Tmux) WaitUntil(what string, limit time.Duration, ok func(screen string) bool) string {
	x.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		scr := x.Screen(false)
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("waited %v for %s; screen:\n%s", limit, what, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
