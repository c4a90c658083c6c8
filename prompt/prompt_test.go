package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadInstructionsOrderAndFallback(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	sub := filepath.Join(root, "svc", "api")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("ROOT rules"), 0o644)
	os.WriteFile(filepath.Join(root, "svc", "CLAUDE.md"), []byte("SVC claude rules"), 0o644)
	os.WriteFile(filepath.Join(sub, "AGENTS.md"), []byte("API rules"), 0o644)
	os.WriteFile(filepath.Join(sub, "CLAUDE.md"), []byte("API claude rules (ignored: AGENTS.md wins)"), 0o644)
	got := LoadInstructions(sub)
	var texts []string
	for _, in := range got {
		texts = append(texts, in.Path+"="+in.Text)
	}
	want := []string{"../../AGENTS.md=ROOT rules", "../CLAUDE.md=SVC claude rules", "AGENTS.md=API rules"}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", texts, want)
	}
}

func TestLoadInstructionsOutsideRepoAndCap(t *testing.T) {
	dir := t.TempDir()
	if got := LoadInstructions(dir); len(got) != 0 {
		t.Errorf("got %v in an empty folder", got)
	}
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	sub := filepath.Join(root, "a")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte(strings.Repeat("r", 20000)), 0o644)
	os.WriteFile(filepath.Join(sub, "AGENTS.md"), []byte(strings.Repeat("s", 20000)), 0o644)
	got := LoadInstructions(sub)
	if len(got) != 1 || got[0].Path != "AGENTS.md" {
		t.Fatalf("over the cap the closest file must win alone, got %d files", len(got))
	}
	os.WriteFile(filepath.Join(sub, "AGENTS.md"), []byte(strings.Repeat("s", 40000)), 0o644)
	got = LoadInstructions(sub)
	if len(got) != 1 || len(got[0].Text) > MaxInstructionBytes+100 || !strings.Contains(got[0].Text, "cut at 32 KiB") {
		t.Errorf("a single file over the cap must be cut: %d files, %d bytes", len(got), len(got[0].Text))
	}
}

func TestSystemIsDeterministic(t *testing.T) {
	h := Hints{Workdir: "/w", OS: "linux", Date: "2026-11-22", Instructions: []Instruction{{Path: "AGENTS.md", Text: "be nice"}}}
	a, b := System("BASE", h), System("BASE", h)
	if a != b || !strings.Contains(a, "Today's date: 2026-11-22") || !strings.Contains(a, "# Project instructions (AGENTS.md)\nbe nice") {
		t.Errorf("system:\n%s", a)
	}
	h.Summary = "we did X"
	if s := System("BASE", h); !strings.Contains(s, "Summary of the conversation so far") || !strings.HasSuffix(strings.TrimSpace(s), "we did X") {
		t.Errorf("summary missing:\n%s", s)
	}
}
