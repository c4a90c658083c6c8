//go:build unix

package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The first screen is four lines: banner, hint, blank, prompt. What every
// command is limited to is on /status, with the rest of the set-up.
func TestREPLFirstScreenAndStatus(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t)
	s := startREPL(t, srv, nil)
	scr := s.waitPrompt()
	lines := strings.Split(strings.TrimRight(scr, "\n "), "\n")
	if len(lines) > 4 {
		t.Errorf("first screen has %d lines, want at most 4:\n%s", len(lines), scr)
	}
	if strings.Contains(scr, "limited to") {
		t.Errorf("the limits are on the first screen:\n%s", scr)
	}
	s.typeLine("/status")
	scr = s.waitFor("  usage ")
	for _, want := range []string{"  model     test-model", "  server    " + strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/v1"), "http://"),
		"  sandbox   ", "  limits    ", "processes", "  session   2"} {
		if !strings.Contains(scr, want) {
			t.Errorf("/status lacks %q:\n%s", want, scr)
		}
	}
	s.typeLine("/help")
	scr = s.waitFor("Ctrl-R")
	for _, want := range []string{"/status", "/clear", "clear the screen and start a new conversation", "first N turns"} {
		if !strings.Contains(scr, want) {
			t.Errorf("/help lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "turn turns") {
		t.Errorf("/help still says \"turn turns\"")
	}
}

// With no key anywhere, aci on a terminal offers to keep one in the
// person's own file: read without echo, written 0600, found next time.
func TestREPLKeySetUp(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t)
	home := t.TempDir()
	noKey := []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL=https://api.example.invalid/v1"}
	s := startPaneIn(t, srv, t.TempDir(), home, noKey, func(bin string) []string { return []string{bin} })
	scr := s.waitFor("(Enter alone quits):")
	for _, want := range []string{"OPENAI_API_KEY is not set (the key for api.example.invalid)", "~/.config/aci/.env (no such file)",
		"Paste your API key for api.example.invalid to keep it in ~/.config/aci/.env"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, scr)
		}
	}
	const key = "sk-typed-in-tmux-1234567890"
	s.tmux("send-keys", "-t", "aci", "-l", key)
	s.keys("Enter")
	scr = s.waitPrompt()
	if !strings.Contains(scr, "saved in ~/.config/aci/.env (mode 600)") || !strings.Contains(scr, "aci 0.1.0") {
		t.Errorf("no confirmation or no REPL:\n%s", scr)
	}
	if strings.Contains(scr, key) {
		t.Errorf("the key was echoed:\n%s", scr)
	}
	path := filepath.Join(home, ".config", "aci", ".env")
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), "OPENAI_API_KEY="+key+"\n") {
		t.Fatalf("file %q, %v", data, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %o, want 600", fi.Mode().Perm())
	}
	s.exit()

	// Next time, from another folder, the key is found: no question.
	again := startPaneIn(t, srv, t.TempDir(), home, noKey, func(bin string) []string { return []string{bin} })
	if scr := again.waitPrompt(); strings.Contains(scr, "Paste your API key") {
		t.Errorf("asked again:\n%s", scr)
	}

	// Ctrl-C at the question writes nothing and leaves the terminal sane.
	other := t.TempDir()
	c := startPaneIn(t, srv, t.TempDir(), other, noKey, func(bin string) []string { return []string{bin} })
	c.waitFor("(Enter alone quits):")
	c.tmux("send-keys", "-t", "aci", "-l", "sk-half")
	c.keys("C-c")
	if code := c.exitStatus(); code != 2 {
		t.Errorf("Ctrl-C: status %d, want 2", code)
	}
	if _, err := os.Stat(filepath.Join(other, ".config", "aci", ".env")); !os.IsNotExist(err) {
		t.Errorf("a file was written after Ctrl-C: %v", err)
	}
}
