//go:build unix

package ui

import (
	"os/exec"
	"syscall"
)

// setGroup runs the program in its own process group, so a timeout ends
// what it started as well.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
