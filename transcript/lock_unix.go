//go:build unix

package transcript

import (
	"os"
	"syscall"
)

var errWouldBlock error = syscall.EWOULDBLOCK

// lockFile takes an exclusive flock on f without waiting. A flock belongs
// to the open file, not the process's other descriptors of the same file
// (reading a transcript to list it does not drop it, as a POSIX record
// lock would be), and the kernel releases it when the process ends.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}
