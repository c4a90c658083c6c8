package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPersonsInstructionsComeFirst(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	if got := UserInstructionsPath(); got != filepath.Join(cfg, "aci", "AGENTS.md") {
		t.Fatalf("path = %q", got)
	}
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "AGENTS.md"), []byte("PROJECT rules"), 0o644)
	if got := LoadAllInstructions(UserInstructionsPath(), work); len(got) != 1 {
		t.Fatalf("without the person's file: %+v", got)
	}
	os.MkdirAll(filepath.Join(cfg, "aci"), 0o755)
	os.WriteFile(UserInstructionsPath(), []byte("PERSON rules"), 0o644)
	got := LoadAllInstructions(UserInstructionsPath(), work)
	if len(got) != 2 || !got[0].User || got[1].User {
		t.Fatalf("got %+v", got)
	}
	sys := System("BASE", Hints{Workdir: work, Instructions: got})
	p, q := strings.Index(sys, "# The person's instructions ("), strings.Index(sys, "# Project instructions (AGENTS.md)\nPROJECT rules")
	if p < 0 || q < 0 || p > q || !strings.Contains(sys, "PERSON rules") {
		t.Errorf("system:\n%s", sys)
	}
}
