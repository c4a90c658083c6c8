//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkProtectCommand measures aci's own bookkeeping around one
// contained command (what protectCommand and its release do: stand-ins,
// the protected-name index, the seal), without the command itself, in a
// repository with git's sample hooks, a nested repository and protected
// files in a subfolder.
func BenchmarkProtectCommand(b *testing.B) {
	ws := b.TempDir()
	for _, d := range []string{ws, filepath.Join(ws, "sub", "repo")} {
		os.MkdirAll(d, 0o755)
		exec.Command("git", "-C", d, "init", "-q").Run()
	}
	os.MkdirAll(filepath.Join(ws, "sub", ".vscode"), 0o755)
	os.WriteFile(filepath.Join(ws, "sub", ".vscode", "tasks.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(ws, "sub", "AGENTS.md"), []byte("x"), 0o644)
	s, err := New(DefaultPolicy(ws), Options{Force: Bwrap})
	if err != nil {
		b.Skip(err)
	}
	s.privateTmp()
	s.protectCommand(nil)()
	for b.Loop() {
		s.protectCommand(nil)()
	}
}
