package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A folder whose project settings define hooks is asked about once,
// naming what would run; yes is kept (not asked again, the hook runs),
// and asked again once the hook changes. No: the hook does not run.
func TestREPLTrustFolder(t *testing.T) {
	t.Parallel()
	work, home := t.TempDir(), t.TempDir()
	marker := filepath.Join(work, "hook-ran")
	settings := filepath.Join(work, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	writeHook := func(cmd string) {
		os.WriteFile(settings, []byte(`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "`+cmd+`"}]}]}}`), 0o644)
	}
	writeHook("touch " + marker)
	start := func(answer string) *pane {
		s := startPaneIn(t, fakeai.New(t, fakeai.Reply{Content: "answered"}), work, home, nil, func(bin string) []string { return []string{bin} })
		if answer != "" {
			scr := s.waitFor("trust this folder?")
			if !strings.Contains(scr, "touch "+marker) {
				t.Errorf("the question does not name what would run:\n%s", scr)
			}
			s.typeLine(answer)
		}
		s.waitPrompt()
		s.typeLine("hello")
		s.waitFor("answered")
		return s
	}
	s := start("n")
	s.waitPrompt()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted project hook ran")
	}
	s.exit()

	s = start("y")
	s.waitPrompt()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the trusted project hook did not run")
	}
	s.exit()
	os.Remove(marker)

	s = start("") // trusted as it is: not asked
	scr := s.waitPrompt()
	if strings.Contains(scr, "trust this folder?") {
		t.Errorf("asked again about the same hooks:\n%s", scr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("the trusted hook did not run in a later session")
	}
	s.exit()

	writeHook("touch " + marker + "-changed")
	s = start("n")
	s.waitPrompt()
	if _, err := os.Stat(marker + "-changed"); err == nil {
		t.Error("a changed hook ran without being trusted")
	}
}
