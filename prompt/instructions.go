package prompt

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxInstructionBytes caps the project instructions loaded in all.
const MaxInstructionBytes = 32 << 10

// Instruction is one project instruction file.
type Instruction struct {
	Path string // relative to the working directory when inside it
	Text string
	User bool // the person's own, for every project (instructions_user.go)
}

// LoadInstructions reads AGENTS.md from the git root (or the working
// directory outside a repository) down to the working directory, the closest
// last; where a folder has none, CLAUDE.md stands in. At most
// MaxInstructionBytes are loaded in all; the closest files win the space.
func LoadInstructions(workdir string) []Instruction {
	dirs := dirsFromRoot(workdir)
	var found []Instruction
	for _, dir := range dirs {
		for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
			p := filepath.Join(dir, name)
			data, err := readAtMost(p, MaxInstructionBytes+1)
			if err != nil {
				continue
			}
			rel, rerr := filepath.Rel(workdir, p)
			if rerr != nil {
				rel = p
			}
			found = append(found, Instruction{Path: rel, Text: string(data)})
			break
		}
	}
	// Keep the closest files whole when the cap bites: drop from the root.
	total := 0
	keep := len(found)
	for i := len(found) - 1; i >= 0; i-- {
		if total+len(found[i].Text) > MaxInstructionBytes {
			if total == 0 {
				found[i].Text = found[i].Text[:MaxInstructionBytes] + "\n[instructions cut at 32 KiB]"
				keep = i
			}
			break
		}
		total += len(found[i].Text)
		keep = i
	}
	return found[keep:]
}

// readAtMost reads the first n bytes of a file: more would only be cut
// away, and a huge file must not fill memory at start.
func readAtMost(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// dirsFromRoot lists the folders from the git root down to workdir.
func dirsFromRoot(workdir string) []string {
	var chain []string
	dir := workdir
	for {
		chain = append(chain, dir)
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			// No repository: only the working directory itself.
			return []string{workdir}
		}
		dir = parent
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain
}
