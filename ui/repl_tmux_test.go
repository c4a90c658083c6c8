//go:build unix

package ui

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

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
)

// The REPL is tested as people use it: the real binary in a terminal (a
// tmux pane on a private server), keys sent, the screen read back.

const (
	paneWidth  = 120
	paneHeight = 40
	waitLimit  = 15 * time.Second // generous: CI machines are slow
)

type pane struct {
	t     *testing.T
	sock  string
	srv   *fakeai.Server
	work  string // aci's working directory
	home  string
	state string // XDG_STATE_HOME
}

// startREPL runs aci in a fresh tmux server against srv. env adds to a
// clean environment; args go to aci.
func startREPL(t *testing.T, srv *fakeai.Server, env []string, args ...string) *pane {
	t.Helper()
	return startPane(t, srv, env, func(bin string) []string { return append([]string{bin}, args...) })
}

// startPane runs the command that argv builds from the binary's path.
func startPane(t *testing.T, srv *fakeai.Server, env []string, argv func(bin string) []string) *pane {
	t.Helper()
	return startPaneIn(t, srv, t.TempDir(), t.TempDir(), env, argv)
}

// startPaneIn is startPane in a given working directory and home, so a
// second aci can continue what a first one left there.
func startPaneIn(t *testing.T, srv *fakeai.Server, work, home string, env []string, argv func(bin string) []string) *pane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := testbin.Build(t)
	s := &pane{t: t, srv: srv, work: work, home: home}
	s.state = filepath.Join(s.home, "state")
	s.sock = fmt.Sprintf("aci-test-%d-%x", os.Getpid(), rand.Uint64())
	conf := filepath.Join(t.TempDir(), "tmux.conf")
	// remain-on-exit keeps the pane after aci exits, to read its status.
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g history-limit 5000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + s.home, "XDG_STATE_HOME=" + s.state,
		"TERM=xterm-256color", "LANG=C.UTF-8",
		"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=sk-test", "OPENAI_MODEL=test-model",
	}
	cmd := []string{"-f", conf, "new-session", "-d", "-s", "aci", "-x", fmt.Sprint(paneWidth), "-y", fmt.Sprint(paneHeight), "-c", s.work, "env", "-i"}
	cmd = append(append(append(cmd, base...), env...), argv(bin)...)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.sock, "kill-server").Run() })
	s.tmux(cmd...)
	return s
}

func (s *pane) tmux(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-u", "-L", s.sock}, args...)...)
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "TMUX") }), "LANG=C.UTF-8")
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is the pane's text, scrollback included.
func (s *pane) screen() string {
	return s.tmux("capture-pane", "-p", "-J", "-t", "aci", "-S", "-")
}

// screenEscapes is the same with colours and attributes as escape codes.
func (s *pane) screenEscapes() string {
	return s.tmux("capture-pane", "-p", "-e", "-J", "-t", "aci", "-S", "-")
}

// waitUntil polls the screen until ok holds; it fails the test after the
// deadline, showing the screen.
func (s *pane) waitUntil(what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		scr := s.screen()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited %v for %s; screen:\n%s", waitLimit, what, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitFor waits until the screen shows text.
func (s *pane) waitFor(text string) string {
	s.t.Helper()
	return s.waitUntil(fmt.Sprintf("%q", text), func(scr string) bool { return strings.Contains(scr, text) })
}

// waitPrompt waits until the last line is an empty prompt: aci is reading.
func (s *pane) waitPrompt() string {
	s.t.Helper()
	return s.waitUntil("the prompt", atPrompt)
}

func atPrompt(scr string) bool {
	switch lastLine(scr) {
	case "›", "ask ›", "plan ›", "yes ›": // the mode before the arrow (repl_mode.go)
		return true
	}
	return false
}

func lastLine(scr string) string {
	lines := strings.Split(strings.TrimRight(scr, "\n "), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// typeLine types text and Enter.
func (s *pane) typeLine(text string) {
	s.t.Helper()
	if text != "" {
		s.tmux("send-keys", "-t", "aci", "-l", text)
	}
	s.keys("Enter")
}

// exchange types line, waits for want on the screen, then for the next
// prompt.
func (s *pane) exchange(line, want string) {
	s.t.Helper()
	s.typeLine(line)
	s.waitFor(want)
	s.waitPrompt()
}

// keys sends tmux key names (Enter, C-c, C-d, Tab).
func (s *pane) keys(keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", "aci"}, keys...)...)
}

// exitStatus waits for aci to exit and returns its status. tmux 3.3
// sometimes leaves an exited pane's process unreaped for a long time, so on
// Linux the zombie's own exit code (/proc/PID/stat) counts too.
func (s *pane) exitStatus() int {
	s.t.Helper()
	pid := strings.TrimSpace(s.tmux("display-message", "-p", "-t", "aci", "#{pane_pid}"))
	deadline := time.Now().Add(waitLimit)
	for {
		var dead, status int
		out := s.tmux("display-message", "-p", "-t", "aci", "#{pane_dead} #{pane_dead_status}")
		if n, _ := fmt.Sscan(out, &dead, &status); n == 2 && dead == 1 {
			return status
		}
		if code, ok := zombieStatus(pid); ok {
			return code
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("aci did not exit within %v; screen:\n%s", waitLimit, s.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// zombieStatus reads the exit code of an exited, unreaped process.
func zombieStatus(pid string) (int, bool) {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	// f[0] is field 3 (state); exit_code is field 52.
	if len(f) < 50 || f[0] != "Z" {
		return 0, false
	}
	var ws int
	if _, err := fmt.Sscan(f[49], &ws); err != nil {
		return 0, false
	}
	if ws&0x7f != 0 {
		return 128 + ws&0x7f, true // killed by a signal
	}
	return ws >> 8 & 0xff, true
}

// hasMessage reports whether a request holds a message of this role and
// exact content.
// hasMessage reports whether a request has a message of role with content,
// followed or not by window renderings.
func hasMessage(req fakeai.Request, role, content string) bool {
	for _, m := range req.Messages {
		if m.Role == role && (m.Content == content || strings.HasPrefix(m.Content, content+"\n\n<windows>\n")) {
			return true
		}
	}
	return false
}

// mentions reports whether any message of a request contains text.
func mentions(req fakeai.Request, text string) bool {
	for _, m := range req.Messages {
		if strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}
