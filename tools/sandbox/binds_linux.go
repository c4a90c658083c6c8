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
	var links [][2]string
	for _, m := range p.Machine {
		// A link on the way is made as the link it is (bound, bwrap would
		// follow it and mount its target read-only at its path): writes
		// through it then reach the granted target (grant_links_linux.go).
		if q, target := machineLink(m); q != "" {
			links = append(links, [2]string{target, q})
			if r := real(m); privateTmpPath(r) && !underAny(r, p.Granted) {
				bs = append(bs, bind{r, false})
			}
			continue
		}
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
	for _, l := range links {
		out = append(out, "--symlink", l[0], l[1])
	}
	return out
}
