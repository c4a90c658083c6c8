//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ui

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// saveTTY snapshots the terminal's settings; the returned func puts them
// back, whatever readline or a turn changed in between.
func saveTTY(fd int) func() {
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return func() {}
	}
	saved := *t
	return func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, &saved) }
}

// discardInput drops what was typed and not yet read: keys typed ahead
// during a turn must not answer a question they were not meant for.
func discardInput(fd int) {
	if t, err := unix.IoctlGetTermios(fd, ioctlGetTermios); err == nil {
		_ = unix.IoctlSetTermios(fd, ioctlSetFlush, t)
	}
}

// onContinue calls f each time aci is continued after a stop (Ctrl-Z, then
// fg): the shell reset the terminal's modes meanwhile. The returned func
// stops.
func onContinue(f func()) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGCONT)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				f()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
