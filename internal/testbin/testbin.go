// Package testbin builds the real aci binary once per test process, for
// end-to-end tests.
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
