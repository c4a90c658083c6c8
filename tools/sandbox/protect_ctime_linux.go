//go:build linux

package sandbox

import (
	"os"
	"syscall"
	"time"
)

// ctime is when fi's status last changed: making, renaming or linking a
// file sets it, and no command can set it back.
func ctime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fi.ModTime()
}
