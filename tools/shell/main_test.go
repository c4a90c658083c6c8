package shell

import (
	"os"
	"testing"

	"github.com/aci-dev/aci/tools/limits"
	"github.com/aci-dev/aci/tools/sandbox"
)

// TestMain removes what the commands' sandboxes and limits left on the
// machine (the private temp folders, aci's cgroups), as aci does at exit.
func TestMain(m *testing.M) {
	code := m.Run()
	sandbox.Cleanup()
	limits.Cleanup()
	os.Exit(code)
}
