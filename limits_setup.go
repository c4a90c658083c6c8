package main

import (
	"fmt"
	"io"

	"github.com/aci-dev/aci/tools/limits"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
)

// applyLimits reads the settings files (the person's, then the
// workspace's, which may only lower a limit) and bounds every command by
// them; it says once how, and what went wrong reading the files. The
// returned function removes what the commands' sandboxes and limits left
// on the machine; call it when the commands have ended.
func applyLimits(workdir string, stderr io.Writer) (cleanup func()) {
	s, problems := settings.Load(sandbox.WorkspaceRoot(workdir)) // .aci/ lives at the git root
	for _, p := range problems {
		fmt.Fprintln(stderr, "aci:", p)
	}
	fmt.Fprintln(stderr, "aci:", limits.Configure(limits.FromSettings(s)))
	return func() {
		limits.Cleanup()
		sandbox.Cleanup()
	}
}
