//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ui

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"
)

// keysMode makes the terminal hand over each key as typed, without echo,
// signals kept (Ctrl-C still raises SIGINT): the turn's line reader draws
// what is typed itself. The returned func restores the settings.
func keysMode(fd int) func() {
	restore := saveTTY(fd)
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return restore
	}
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON
	t.Lflag |= unix.ISIG
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	_ = unix.IoctlSetTermios(fd, ioctlSetTermios, t)
	return restore
}

// keyWaiter waits for keys on fd, or for stop.
type keyWaiter struct {
	fd    int
	r, w  int // a pipe that wakes the wait
	zeros int // empty reads in a row

	mu     sync.Mutex
	closed bool
}

func newKeyWaiter(fd int) (*keyWaiter, error) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return nil, err
	}
	return &keyWaiter{fd: fd, r: p[0], w: p[1]}, nil
}

// read waits for keys and reads them; io.EOF-like errStopped once stop
// was called.
func (k *keyWaiter) read(buf []byte) (int, error) {
	for {
		fds := []unix.PollFd{{Fd: int32(k.fd), Events: unix.POLLIN}, {Fd: int32(k.r), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return 0, err
		}
		if fds[1].Revents != 0 {
			return 0, errStopped
		}
		if fds[0].Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLERR) != 0 {
			n, err := unix.Read(k.fd, buf)
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
				continue
			}
			if n == 0 && err == nil {
				// Ctrl-D at the start of a line while the terminal is
				// in line mode (between prompts): a key, not the end,
				// unless the terminal hung up or it repeats endlessly.
				if fds[0].Revents&unix.POLLHUP != 0 || k.zeros >= 100 {
					return 0, errStopped
				}
				k.zeros++
				buf[0] = 0x04
				return 1, nil
			}
			if n > 0 {
				k.zeros = 0
			}
			return n, err
		}
	}
}

// stop wakes a waiting read for good.
func (k *keyWaiter) stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.closed {
		unix.Write(k.w, []byte{0})
	}
}

func (k *keyWaiter) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.closed {
		k.closed = true
		unix.Close(k.r)
		unix.Close(k.w)
	}
}
