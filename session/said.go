package session

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aci-dev/aci/internal/dirs"
)

// firstTime reports whether the warning text about file path is new: not
// said before for the file as it is now (its modification time). It
// remembers one marker file per warning in aci's state folder
// ($XDG_STATE_HOME/aci/said); with no state folder it is always new.
func firstTime(path, text string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return true
	}
	dir := dirs.StateFile("said")
	if dir == "" {
		return true
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%s", path, fi.ModTime().UnixNano(), text))
	mark := filepath.Join(dir, fmt.Sprintf("%x", sum[:12]))
	if _, err := os.Stat(mark); err == nil {
		return false
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return true
	}
	f, err := os.OpenFile(mark, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return !os.IsExist(err)
	}
	f.Close()
	return true
}
