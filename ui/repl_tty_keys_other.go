//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package ui

import "os"

// Elsewhere keys are read as the console hands them over, and a read
// cannot be woken: stop only makes the next one end.
func keysMode(int) func() { return func() {} }

type keyWaiter struct {
	f       *os.File
	stopped chan struct{}
}

func newKeyWaiter(fd int) (*keyWaiter, error) {
	return &keyWaiter{f: os.NewFile(uintptr(fd), "stdin"), stopped: make(chan struct{})}, nil
}

func (k *keyWaiter) read(buf []byte) (int, error) {
	select {
	case <-k.stopped:
		return 0, errStopped
	default:
	}
	return k.f.Read(buf)
}

func (k *keyWaiter) stop() {
	select {
	case <-k.stopped:
	default:
		close(k.stopped)
	}
}

func (k *keyWaiter) close() {}
