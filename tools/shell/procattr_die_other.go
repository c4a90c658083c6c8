//go:build !linux

package shell

import (
	"syscall"

	"github.com/aci-dev/aci/tools/sandbox"
)

func dieWithAci(*syscall.SysProcAttr, *sandbox.Sandbox) {}
