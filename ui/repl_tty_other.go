//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package ui

// Elsewhere (Windows) readline restores the console itself and echo during
// a turn is left as it is.
func saveTTY(int) func() { return func() {} }

func onContinue(func()) func() { return func() {} }

func discardInput(int) {}
