//go:build !linux

package sandbox

import (
	"os"
	"time"
)

// ctime falls back to the modification time here (only bwrap, on Linux,
// uses the index).
func ctime(fi os.FileInfo) time.Time { return fi.ModTime() }
