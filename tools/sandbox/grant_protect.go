package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/aci-dev/aci/tools/secrets"
)

// A grant makes writable exactly what the person was asked about, minus
// what runs code or holds aci's settings later, existing or not: the
// shell and git start-up files, editors' start-up files, ~/.ssh and the
// other secret stores, ~/.local/bin, the user's systemd units, autostart
// entries and aci's own configuration. Inside a granted folder, those
// that exist are bound read-only and the folders between them and the
// grant are bound over themselves (so that renaming a parent cannot carry
// them away); those that do not exist and appear while the command runs
// are moved out (or removed) when it ends, and named in its result. A
// grant that names one of them, or a path inside one, adds nothing.

// grantProtectedWhy says why a path of secrets.StartupFiles or
// secrets.HomeStores is kept.
const grantProtectedWhy = "programs run or obey this later, outside the sandbox (start-up files, keys, aci's settings): a grant never covers it"

// grantProtectedPaths are the paths no grant covers, absolute; home is the
// user's home folder.
func grantProtectedPaths(home string) []string {
	var out []string
	if home != "" {
		for _, list := range [][]string{secrets.StartupFiles, secrets.HomeStores} {
			for _, rel := range list {
				out = appendUnique(out, filepath.Join(home, rel))
			}
		}
	}
	if cf := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(cf) {
		out = appendUnique(out, filepath.Join(cf, "aci"))
		out = appendUnique(out, filepath.Join(cf, "git"))
		out = appendUnique(out, filepath.Join(cf, "systemd"))
	}
	// Cron and the system's own units: only root could write them, and a
	// grant of / runs uncontained (asked as such).
	return out
}

// realAbove resolves the folders of p that exist (the last ones may not).
func realAbove(p string) string {
	d, rest := p, ""
	for {
		if _, err := os.Lstat(d); err == nil {
			return filepath.Join(real(d), rest)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return p
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = parent
	}
}

// grantProtect drops from write the paths that lie in a protected one,
// and adds to p what keeps the protected paths inside the rest as they
// are: the existing ones read-only (or hidden already), the folders
// between them and their grant pinned. It returns the missing ones to
// watch.
func grantProtect(p Policy, write []string, home string) (Policy, []string, []string) {
	prot := grantProtectedPaths(home)
	for i, r := range prot {
		prot[i] = realAbove(r)
	}
	write = slices.DeleteFunc(write, func(w string) bool { return underAny(w, prot) })
	var missing []string
	p.ReadOnly = slices.Clip(p.ReadOnly)
	for _, r := range prot {
		g := ""
		for _, w := range write {
			if within(r, w) && r != w {
				g = w
			}
		}
		if g == "" {
			continue
		}
		if _, err := os.Lstat(r); err != nil {
			missing = appendUnique(missing, r)
		} else if !underAny(r, p.Hidden) {
			p.ReadOnly = appendUnique(p.ReadOnly, r)
		}
		for d := filepath.Dir(r); d != g && within(d, g); d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
				p.Pinned = appendUnique(p.Pinned, d)
			}
		}
	}
	return p, write, missing
}

// watchGrant wraps a granted command's release: the protected paths that
// did not exist when it started and do now are moved out of the way (or
// removed, where they cannot be moved), and named.
func (s *Sandbox) watchGrant(g Grant, release func() []string) func() []string {
	if len(g.Write) == 0 {
		return release
	}
	home, _ := os.UserHomeDir()
	var write []string
	for _, w := range g.Write {
		write = appendUnique(write, real(w))
	}
	_, _, missing := grantProtect(Policy{}, write, home)
	if len(missing) == 0 {
		return release
	}
	var once sync.Once
	var notes []string
	return func() []string {
		once.Do(func() {
			notes = release()
			for _, m := range missing {
				if _, err := os.Lstat(m); err != nil {
					continue
				}
				where := s.quarantine(m)
				if strings.HasSuffix(where, "(could not be moved away)") {
					if os.RemoveAll(m) == nil {
						where = m + " (removed)"
					}
				}
				notes = append(notes, where+": "+grantProtectedWhy)
			}
		})
		return notes
	}
}
