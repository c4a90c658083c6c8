//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// sealBindArgs binds each .git of the workspace over itself: a folder
// writable as before, a .git file read-only. A mount point cannot be
// renamed, replaced or removed (EBUSY), so the route of moving .git
// aside and putting a writable copy in its place fails at once, for git
// and editors on the machine that look at it while the command runs, not
// only after it (the seal puts back what another route changed: seal.go).
// Its config and hooks are bound read-only on top (the root's are in
// readOnly already, bound after).
func sealBindArgs(out []string, entries, readOnly []string) []string {
	for _, e := range entries {
		fi, err := os.Lstat(e)
		switch {
		case err != nil:
		case fi.IsDir():
			out = append(out, "--bind", e, e)
			for _, sub := range []string{"config", "hooks"} {
				if p := filepath.Join(e, sub); !slices.Contains(readOnly, p) {
					out = append(out, "--ro-bind-try", p, p)
				}
			}
		case fi.Mode().IsRegular():
			out = append(out, "--ro-bind", e, e)
		}
	}
	return out
}

// pinArgs binds the pinned folders over themselves, parents first.
func pinArgs(out []string, pinned []string) []string {
	pinned = slices.Clone(pinned)
	slices.Sort(pinned)
	for _, d := range pinned {
		out = append(out, "--bind", d, d)
	}
	return out
}
