//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package ui

import "errors"

// Elsewhere the turn's line reader is off: keys typed during a turn wait
// for the next prompt.
func keysMode(int) func() { return func() {} }

type keyWaiter struct{}

func newKeyWaiter(int) (*keyWaiter, error) { return nil, errors.New("not supported here") }

func (k *keyWaiter) read([]byte) (int, error) { return 0, errStopped }
func (k *keyWaiter) stop()                    {}
func (k *keyWaiter) close()                   {}
