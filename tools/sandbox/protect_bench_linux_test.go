//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aci-dev/aci/internal/benchws"
)

// BenchmarkProtectCommand measures aci's own bookkeeping around one
// contained command (what protectCommand and its release do: stand-ins,
// the protected-name index, the seal), without the command itself: in a
// repository with git's sample hooks, a nested repository and protected
// files in a subfolder, and in one of benchws.Folders folders; the index
// kept current by the kernel's word (notify) or by a stat of every
// folder (scan, as where there is no inotify).
func BenchmarkProtectCommand(b *testing.B) {
	small := b.TempDir()
	for _, d := range []string{small, filepath.Join(small, "sub", "repo")} {
		os.MkdirAll(d, 0o755)
		exec.Command("git", "-C", d, "init", "-q").Run()
	}
	os.MkdirAll(filepath.Join(small, "sub", ".vscode"), 0o755)
	os.WriteFile(filepath.Join(small, "sub", ".vscode", "tasks.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(small, "sub", "AGENTS.md"), []byte("x"), 0o644)
	large := b.TempDir()
	if err := benchws.Make(large, benchws.Folders); err != nil {
		b.Fatal(err)
	}
	for _, ws := range []struct{ name, dir string }{{"repo", small}, {"5000dirs", large}} {
		for _, notify := range []bool{true, false} {
			b.Run(ws.name+map[bool]string{true: "/notify", false: "/scan"}[notify], func(b *testing.B) {
				s, err := New(DefaultPolicy(ws.dir), Options{Force: Bwrap})
				if err != nil {
					b.Skip(err)
				}
				b.Cleanup(s.Close)
				if !notify {
					s.indexed().noWatch = errNoWatch
				}
				s.privateTmp()
				s.protectCommand(nil)()
				for b.Loop() {
					s.protectCommand(nil)()
				}
			})
		}
	}
}
