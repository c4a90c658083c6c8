//go:build !linux

package shell

import "syscall"

// procAttr starts a command in its own session (see startShellProc).
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
