// Package testbin is the rig of the tests that drive the real aci binary
// (the e2e package, ACP's, the REPL's in tmux): it builds the binary once
// per test process, gives it a fresh environment against a fakeai server
// and runs it.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once sync.Once
	path string
	err  error
	out  []byte
)

// Build returns the path of a freshly built aci binary.
func Build(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		dir, derr := os.MkdirTemp("", "aci-bin-")
		if derr != nil {
			err = derr
			return
		}
		path = filepath.Join(dir, "aci")
		cmd := exec.Command("go", "build", "-o", path, ".")
		cmd.Dir = root
		out, err = cmd.CombinedOutput()
	})
	if err != nil {
		t.Fatalf("build aci: %v\n%s", err, out)
	}
	return path
}
