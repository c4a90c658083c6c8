//go:build unix

package serve

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// waiting says whether c has bytes the server has not read yet (a request
// on its way in), without reading them.
func waiting(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var n int
	var buf [1]byte
	raw.Control(func(fd uintptr) {
		n, _, _ = unix.Recvfrom(int(fd), buf[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
	})
	return n > 0
}
