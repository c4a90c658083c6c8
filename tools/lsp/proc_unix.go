//go:build unix && !linux

package lsp

import (
	"os/exec"
	"syscall"
)

// procAttr starts a server in its own process group, so that stopping it
// ends what it started too.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
