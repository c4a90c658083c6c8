package main

import (
	"github.com/aci-dev/aci/windows"
)

// setPermissionMode reads --permission-mode (value "" when not given),
// together with --yes and ACI_YES, which mean mode yes. The mode comes
// from flags and the environment only: yes is a safety switch.
func (c *config) setPermissionMode(value string) error {
	if value == "" {
		if c.Yes {
			c.PermissionMode = windows.ModeYes
		}
		return nil
	}
	m, err := windows.ParseMode(value)
	if err != nil {
		return usageErr("--permission-mode: %v", err)
	}
	if c.Yes && m != windows.ModeYes {
		return usageErr("--yes and --permission-mode %s disagree: give one of them", m)
	}
	if m == windows.ModeYes && c.cmd.name == acpCmd.name {
		return usageErr("aci acp does not take --permission-mode yes: the editor asks you before anything dangerous")
	}
	c.PermissionMode, c.Yes = m, m == windows.ModeYes
	return nil
}
