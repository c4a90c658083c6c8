package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// NeedGopls makes gopls findable for a test: on PATH, or where go install
// puts it ($(go env GOPATH)/bin, added to PATH). Without it the test skips,
// saying why, except on CI (CI=true), where it fails.
func NeedGopls(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err == nil {
		return
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, gp := range filepath.SplitList(strings.TrimSpace(string(out))) {
			bin := filepath.Join(gp, "bin")
			if _, err := os.Stat(filepath.Join(bin, "gopls")); err == nil {
				t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
				return
			}
		}
	}
	msg := "gopls is not installed: go install golang.org/x/tools/gopls@v0.23.0"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
