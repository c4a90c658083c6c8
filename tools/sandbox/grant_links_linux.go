//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// machineLink finds the first symlink on the way from the temp root to
// machine path m (itself included): its path and target; "" when there
// is none.
func machineLink(m string) (string, string) {
	root := "/tmp"
	if strings.HasPrefix(m, "/var/tmp/") {
		root = "/var/tmp"
	}
	rest, ok := strings.CutPrefix(m, root+"/")
	if !ok {
		return "", ""
	}
	q := root
	for _, part := range strings.Split(rest, "/") {
		q = filepath.Join(q, part)
		fi, err := os.Lstat(q)
		if err != nil {
			return "", ""
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(q)
			if err != nil {
				return "", ""
			}
			return q, target
		}
	}
	return "", ""
}
