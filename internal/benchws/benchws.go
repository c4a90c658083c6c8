// Package benchws makes the large workspace the containment benchmarks
// run in (bench/contained_start.sh): a git repository of many folders,
// some protected files and secret files at depth, as a real project has.
package benchws

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Folders is the size of the large workspace the benchmarks use.
const Folders = 5000

// Make fills dir with a git repository of n folders (two levels: n/100
// groups of 100), one source file in each, an AGENTS.md and a .env in
// every 500th, and a .vscode folder at the root.
func Make(dir string, n int) error {
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v %s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".vscode"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ".vscode", "settings.json"), []byte("{}\n"), 0o644); err != nil {
		return err
	}
	for i := range n {
		d := filepath.Join(dir, fmt.Sprintf("g%03d", i/100), fmt.Sprintf("d%03d", i%100))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		files := []string{"main.go"}
		if i%500 == 7 {
			files = append(files, "AGENTS.md", ".env")
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f), []byte("package x\n"), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
