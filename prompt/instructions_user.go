package prompt

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/aci-dev/aci/internal/dirs"
)

// UserInstructionsPath is the person's AGENTS.md, for every project:
// $XDG_CONFIG_HOME/aci/AGENTS.md (by default ~/.config/aci/AGENTS.md); ""
// without a home.
func UserInstructionsPath() string {
	return dirs.ConfigFile("AGENTS.md")
}

// LoadAllInstructions is the person's AGENTS.md (at path; "" for none),
// then workdir's project files (LoadInstructions): the project's come last,
// closest to the question, so they win where the two disagree.
func LoadAllInstructions(path, workdir string) []Instruction {
	project := LoadInstructions(workdir)
	if path == "" {
		return project
	}
	data, err := readAtMost(path, MaxInstructionBytes+1)
	if err != nil || strings.TrimSpace(string(data)) == "" {
		return project
	}
	text := string(data)
	if len(text) > MaxInstructionBytes {
		text = text[:MaxInstructionBytes] + "\n[instructions cut at 32 KiB]"
	}
	shown := path
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && !strings.HasPrefix(rel, "..") {
			shown = filepath.Join("~", rel)
		}
	}
	return append([]Instruction{{Path: shown, Text: text, User: true}}, project...)
}
