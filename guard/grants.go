package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A command asked about because it writes or deletes outside the workspace
// must, once allowed, be able to do just that: the guard, which knows what
// each operand means (a folder deleted, a file written, a wildcard's
// folder), says which paths must be writable (Verdict.Writes); the sandbox
// makes them so for that one command.

// grantState is what the walk collects for Verdict.Writes and
// Verdict.Machine, across nested shells.
type grantState struct {
	grants []string
	// grantWhys are the reasons that a grant answers: a finding with one
	// of them does not stop the walk (a later statement may delete
	// elsewhere too), it is kept in grantFound.
	grantWhys  map[string]bool
	grantFound *guardFinding
	machine    []string
	effects    []Effect
}

// maxGrantPaths bounds the lists a verdict carries.
const maxGrantPaths = 64

// deferGrant keeps a finding that a grant answers and lets the walk go on;
// false for any other finding, which ends the walk.
func (c *cmdChecker) deferGrant(f *guardFinding) bool {
	if !c.shared.grantWhys[f.why] {
		return false
	}
	if c.shared.grantFound == nil {
		c.shared.grantFound = f
	}
	return true
}

// granted records that path must be writable for the command, and that
// why is the reason it is asked.
func (c *cmdChecker) granted(why, path string) string {
	s := c.shared
	if s.grantWhys == nil {
		s.grantWhys = map[string]bool{}
	}
	s.grantWhys[why] = true
	if path != "" && !slices.Contains(s.grants, path) && len(s.grants) < maxGrantPaths {
		s.grants = append(s.grants, path)
	}
	return why
}

// grantWrite is what writing real needs: the file or folder itself when
// it exists (a folder: what is written goes inside it), else the nearest
// folder above it that exists, where it will be created.
func grantWrite(real string) string {
	for p := real; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			return p
		}
		if p == filepath.Dir(p) {
			return "/"
		}
	}
}

// grantDelete is what deleting or moving away real needs: its folder (a
// path is removed from its folder, so the path alone would not do).
func grantDelete(real string) string {
	if real == "/" {
		return "/"
	}
	return grantWrite(filepath.Dir(real))
}

// noteMachine records v when it names a path below a temp root that
// exists on the machine (a word such as --out=/tmp/x counts by its value).
func (c *cmdChecker) noteMachine(v string) {
	if len(c.shared.machine) >= maxGrantPaths || !strings.Contains(v, "tmp/") {
		return
	}
	if !filepath.IsAbs(v) {
		i := strings.LastIndexByte(v, '=')
		if i < 0 || !filepath.IsAbs(v[i+1:]) {
			return
		}
		v = v[i+1:]
	}
	// The folders a ".." climbs out of must be there too, or the path
	// leads nowhere inside the sandbox (grants_dotdot.go).
	for _, pre := range dotDotPrefixes(v) {
		c.noteMachineAt(pre)
	}
	c.noteMachineAt(filepath.Clean(v))
}

// noteMachineAt is noteMachine for a clean absolute path.
func (c *cmdChecker) noteMachineAt(v string) {
	if len(c.shared.machine) >= maxGrantPaths {
		return
	}
	for _, s := range c.env.scratch {
		if v == s || !pathWithin(v, s) || !onMachine(s, v) {
			continue
		}
		p := v
		for ; p != s; p = filepath.Dir(p) {
			if _, err := os.Lstat(p); err == nil {
				break
			}
		}
		if !slices.Contains(c.shared.machine, p) {
			c.shared.machine = append(c.shared.machine, p)
		}
		return
	}
}

// onMachine reports whether the folder or file right below temp root s on
// the way to p exists on the machine. Such a path is the machine's, not
// scratch: a contained command sees its session's own /tmp, where it is
// not, so deleting or writing it is judged as outside the workspace.
func onMachine(s, p string) bool {
	top := topBelow(s, p)
	if top == "" {
		return false
	}
	_, err := os.Lstat(filepath.Join(s, top))
	return err == nil
}

// needsMachine is why for a change no folder grant covers (system packages
// and services, a privilege wrapper, a global install): allowing it runs
// the command outside the sandbox ("/" in Verdict.Writes).
func (c *cmdChecker) needsMachine(why string) string {
	if !slices.Contains(c.shared.grants, "/") {
		c.shared.grants = append(c.shared.grants, "/")
	}
	return why
}

// editsInPlace is why for an in-place edit (sed -i, perl -i) of a path
// whose write was judged why: the tool writes a new file beside the old
// and renames it over it, which needs the file's folder, not the file.
func (c *cmdChecker) editsInPlace(why string) string {
	s := c.shared
	if !s.grantWhys[why] {
		return "edits in place: " + why
	}
	if n := len(s.grants); n > 0 {
		if fi, err := os.Lstat(s.grants[n-1]); err == nil && fi.Mode().IsRegular() {
			dir := filepath.Dir(s.grants[n-1])
			s.grants = s.grants[:n-1]
			if !slices.Contains(s.grants, dir) {
				s.grants = append(s.grants, dir)
			}
		}
	}
	return c.granted("edits in place: "+why, "")
}
