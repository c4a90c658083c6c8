package lsp

import (
	"os/exec"
	"syscall"
)

// procAttr starts a server in its own process group, so that stopping it
// ends what it started too; should aci die, it gets SIGTERM (bwrap also
// ends its namespace then: --die-with-parent).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
