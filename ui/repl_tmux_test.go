//go:build unix

package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
	"github.com/aci-dev/aci/internal/testutil"
)

// The REPL is tested as people use it: the real binary in a terminal (a
// tmux pane on a private server), keys sent, the screen read back.

const (
	paneWidth  = 120
	paneHeight = 40
	waitLimit  = 15 * time.Second // generous: CI machines are slow
)

type pane struct {
	*testutil.Tmux
	t     *testing.T
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

// readyREPL is startREPL once aci waits at its prompt.
func readyREPL(t *testing.T, srv *fakeai.Server, env []string, args ...string) *pane {
	t.Helper()
	s := startREPL(t, srv, env, args...)
	s.waitPrompt()
	return s
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
	base := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + s.home, "XDG_STATE_HOME=" + s.state,
		"TERM=xterm-256color", "LANG=C.UTF-8",
		"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=sk-test", "OPENAI_MODEL=test-model",
	}
	s.Tmux = testutil.StartTmux(t, s.work, paneWidth, paneHeight, append(base, env...), argv(bin))
	return s
}

func (s *pane) tmux(args ...string) string {
	s.t.Helper()
	return s.Run(args...)
}

// screen is the pane's text, scrollback included.
func (s *pane) screen() string { return s.Screen(false) }

// screenEscapes is the same with colours and attributes as escape codes.
func (s *pane) screenEscapes() string { return s.Screen(true) }

// waitUntil polls the screen until ok holds; it fails the test after
// waitLimit, showing the screen.
func (s *pane) waitUntil(what string, ok func(screen string) bool) string {
	s.t.Helper()
	return s.WaitUntil(what, waitLimit, ok)
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
// prompt, and returns the screen then.
func (s *pane) exchange(line, want string) string {
	s.t.Helper()
	s.typeLine(line)
	s.waitFor(want)
	return s.waitPrompt()
}

// screenHas fails the test for each of wants the screen lacks.
func screenHas(t *testing.T, scr string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
}

// exit ends aci with /exit, which must exit 0.
func (s *pane) exit() {
	s.t.Helper()
	s.typeLine("/exit")
	if code := s.exitStatus(); code != 0 {
		s.t.Errorf("/exit: status %d, want 0", code)
	}
}

// transcripts are the session transcripts aci wrote.
func (s *pane) transcripts() []string {
	files, _ := filepath.Glob(filepath.Join(s.state, "aci", "sessions", "*.jsonl"))
	return files
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
