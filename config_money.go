package main

import (
	"os"

	"github.com/aci-dev/aci/agent"
)

// loadEffort reads the reasoning effort: ACI_REASONING_EFFORT, then
// --effort, which wins.
func (c *config) loadEffort(flagValue string, flagSet bool) error {
	v, from := os.Getenv("ACI_REASONING_EFFORT"), "ACI_REASONING_EFFORT"
	if flagSet {
		v, from = flagValue, "--effort"
		if v == "" {
			return usageErr("--effort needs a level: %s", joinEfforts())
		}
	}
	e, err := agent.ParseEffort(v)
	if err != nil {
		return usageErr("%s: %v", from, err)
	}
	c.Effort = e
	return nil
}

func joinEfforts() string {
	s := ""
	for i, e := range agent.Efforts {
		if i > 0 {
			s += ", "
		}
		s += e
	}
	return s
}
