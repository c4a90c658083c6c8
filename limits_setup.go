package main

import (
	"fmt"
	"io"

	"github.com/aci-dev/aci/tools/limits"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
)

// applyLimits bounds every command by the settings' limits (the
// person's, then the workspace's, which may only lower one). It says on
// stderr when
// commands run with no limits at all; how they are bounded otherwise is
// not news at every start: it returns that line for /status (a command a
// limit stops is told which). cleanup removes what the commands'
// sandboxes and limits left on the machine; call it when the commands
// have ended.
func applyLimits(cfg config, stderr io.Writer) (note string, cleanup func()) {
	s := settings.Of(cfg.Person, cfg.Project) // read, and checked, at start (config_money.go)
	note = limits.Configure(limits.FromSettings(s))
	if limits.Current().Mechanism() == limits.Off {
		fmt.Fprintln(stderr, "aci:", note)
	}
	return note, func() {
		limits.Cleanup()
		sandbox.Cleanup()
	}
}

// sandboxStatus says how commands are contained, for /status; it probes
// the machine the first time, as the first command would.
func sandboxStatus(workdir, mode string) string {
	switch mode {
	case sandbox.ModeOff:
		return "off: commands are not contained; the guard alone decides"
	case sandbox.ModeContainer:
		return "container: commands run uncontained inside this container, which is the boundary; the guard decides"
	}
	sb := sandbox.For(workdir)
	switch {
	case sb == nil:
		return "unavailable: this machine cannot contain commands; the guard alone decides"
	case sb.NetContained():
		return fmt.Sprintf("workspace (%s): commands contained, network through aci's proxy", sb.Kind())
	}
	return fmt.Sprintf("workspace (%s): commands contained, network not contained", sb.Kind())
}
