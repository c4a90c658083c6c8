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
// them. It says on stderr what went wrong reading the files, and how
// commands are bounded when that is weaker than a cgroup per command; it
// returns that line for the REPL to show in any case. cleanup removes what
// the commands' sandboxes and limits left on the machine; call it when the
// commands have ended.
func applyLimits(workdir string, stderr io.Writer) (note string, cleanup func()) {
	s, problems := settings.Load(sandbox.WorkspaceRoot(workdir)) // .aci/ lives at the git root
	for _, p := range problems {
		fmt.Fprintln(stderr, "aci:", p)
	}
	note = limits.Configure(limits.FromSettings(s))
	if m := limits.Current().Mechanism(); m != limits.CgroupV1 && m != limits.CgroupV2 {
		fmt.Fprintln(stderr, "aci:", note)
	}
	return note, func() {
		limits.Cleanup()
		sandbox.Cleanup()
	}
}
