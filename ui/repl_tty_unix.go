//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ui

import "golang.org/x/sys/unix"

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

// noEcho turns the terminal's echo off (signals stay on); the returned func
// restores the settings. Set without flushing, so type-ahead is kept.
func noEcho(fd int) func() {
	restore := saveTTY(fd)
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return restore
	}
	t.Lflag &^= unix.ECHO | unix.ECHONL
	_ = unix.IoctlSetTermios(fd, ioctlSetTermios, t)
	return restore
}
