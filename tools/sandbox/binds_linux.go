//go:build linux

package sandbox

import (
	"sort"
	"strings"
)

// bindArgs binds the writable roots and a command's granted paths
// read-write and the machine's /tmp paths it named read-only (over the
// session's own /tmp), parents before children, so that a folder bound
// later inside an earlier one keeps its own access.
func bindArgs(out []string, p Policy, roots []string) []string {
	type bind struct {
		path string
		rw   bool
	}
	var bs []bind
	for _, r := range roots {
		if r == "/dev/shm" || strings.HasPrefix(r, "/dev/") || r == "/proc" || strings.HasPrefix(r, "/proc/") {
			continue
		}
		bs = append(bs, bind{r, true})
	}
	for _, g := range p.Granted {
		bs = append(bs, bind{g, true})
	}
	for _, m := range p.Machine {
		bs = append(bs, bind{m, false})
	}
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].path < bs[j].path })
	for _, b := range bs {
		if b.rw {
			out = append(out, "--bind-try", b.path, b.path)
		} else {
			out = append(out, "--ro-bind-try", b.path, b.path)
		}
	}
	return out
}
