//go:build linux

package shell

import (
	"syscall"

	"github.com/aci-dev/aci/tools/sandbox"
)

// dieWithAci makes a command whose first process is bwrap (with a pid
// namespace of its own: ending bwrap ends all of it) get SIGKILL should
// aci die, even by SIGKILL: bwrap does not act on the SIGTERM a limits
// helper wants (measured: with SIGTERM, bwrap and the command outlived a
// killed aci).
func dieWithAci(a *syscall.SysProcAttr, sb *sandbox.Sandbox) {
	if sb.OwnPIDNamespace() {
		a.Pdeathsig = syscall.SIGKILL
	}
}
