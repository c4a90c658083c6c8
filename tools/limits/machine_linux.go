//go:build linux

package limits

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cgroupMemMB is the memory limit of the cgroup aci runs in (a container,
// a systemd slice), in MB; 0 when there is none or it cannot be read. In a
// container /proc/meminfo shows the host's memory, not what aci may use.
func cgroupMemMB() int64 {
	mounts, err := cgroupMounts()
	if err != nil {
		return 0
	}
	own, err := ownCgroups()
	if err != nil {
		return 0
	}
	var file string
	if m, ok := mounts["memory"]; ok {
		file = filepath.Join(m, own["memory"], "memory.limit_in_bytes")
	} else if m, ok := mounts[""]; ok {
		file = filepath.Join(m, own[""], "memory.max")
	}
	if file == "" {
		return 0
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	return parseMemLimit(string(b))
}

// parseMemLimit reads a cgroup memory limit ("max", or bytes, where v1's
// "no limit" is a number near 2^63) as MB; 0 for none.
func parseMemLimit(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 || n >= 1<<62 {
		return 0
	}
	return n >> 20
}
