//go:build !linux

package sandbox

import "time"

func enter() bool { return true }
func leave()      {}
func closeGate()  {}

const endWait = 3 * time.Second

func endOwnSandboxes(time.Duration) {}
