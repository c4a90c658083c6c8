//go:build linux

package shell

import "syscall"

// procAttr starts a command in its own session (see startShellProc). Should
// aci die, the limits helper (or bwrap) gets SIGTERM and ends the command
// with everything it started.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
}
