package guard

import (
	"path/filepath"
	"strings"
)

// dotDotPrefixes are the folders an absolute path climbs out of with
// "..", each as the path names it up to there: /tmp/a/b/../../c/d gives
// /tmp/a/b. The kernel resolves ".." where it stands, so a contained
// command reaches /tmp/c/d through it only if /tmp/a/b is there as on
// the machine.
func dotDotPrefixes(p string) []string {
	if !strings.Contains(p, "..") {
		return nil
	}
	var out []string
	cur := "/"
	for _, part := range strings.Split(p, "/") {
		switch part {
		case "", ".":
		case "..":
			if cur != "/" && (len(out) == 0 || out[len(out)-1] != cur) {
				out = append(out, cur)
			}
			cur = filepath.Dir(cur)
		default:
			cur = filepath.Join(cur, part)
		}
	}
	return out
}
