package guard

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aci-dev/aci/tools/secrets"
)

// parsedArgs holds a command's options and operands.
type parsedArgs struct {
	flags map[string]string // "-r", "--target-directory" -> value ("" for switches)
	ops   []shArg
}

func (p parsedArgs) has(names ...string) bool {
	for _, n := range names {
		if _, ok := p.flags[n]; ok {
			return true
		}
	}
	return false
}

func (p parsedArgs) get(names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := p.flags[n]; ok {
			return v, true
		}
	}
	return "", false
}

// parseCmdArgs splits GNU-style arguments. Short letters in shortVal and long
// names in longVal take a value; an unresolvable word is an operand.
func parseCmdArgs(args []shArg, shortVal string, longVal map[string]bool) parsedArgs {
	p := parsedArgs{flags: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val
		switch {
		case !a.ok || v == "-" || !strings.HasPrefix(v, "-"):
			p.ops = append(p.ops, a)
		case v == "--":
			p.ops = append(p.ops, args[i+1:]...)
			return p
		case strings.HasPrefix(v, "--"):
			name, val, eq := strings.Cut(v, "=")
			if !eq && longVal[name] && i+1 < len(args) {
				i++
				val = args[i].val
			}
			p.flags[name] = val
		default:
			for j := 1; j < len(v); j++ {
				f := "-" + v[j:j+1]
				if strings.IndexByte(shortVal, v[j]) >= 0 {
					val := v[j+1:]
					if val == "" && i+1 < len(args) {
						i++
						val = args[i].val
					}
					p.flags[f] = val
					break
				}
				p.flags[f] = ""
			}
		}
	}
	return p
}

// writeWhy judges writing to a (e.g. > a, tee a, cp x a).
func (c *cmdChecker) writeWhy(a shArg) string {
	if !a.ok {
		return "writes to a path it cannot resolve"
	}
	p := c.abs(a.val)
	if p == "" {
		if c.remote {
			return ""
		}
		return "writes to a relative path after a cd it cannot resolve"
	}
	if a.glob {
		p = globLiteralDir(p)
	}
	p = c.viaLinks(p)
	switch {
	case safeDevices()[p], strings.HasPrefix(p, "/dev/fd/"), strings.HasPrefix(p, "/proc/self/fd/"),
		strings.HasPrefix(p, "/dev/shm/"):
		return ""
	case strings.HasPrefix(p, "/dev/tcp/"), strings.HasPrefix(p, "/dev/udp/"):
		return "opens a network connection from the shell"
	case strings.HasPrefix(p, "/dev/"):
		return "writes to a raw device"
	}
	real := c.env.real(p, true)
	if why := c.env.persistWhy(p); why != "" {
		return c.granted(why, c.effect(real, false, grantWrite(real)))
	}
	if why := c.env.persistWhy(real); why != "" {
		return c.granted(why, c.effect(real, false, grantWrite(real)))
	}
	switch c.env.zoneOf(real) {
	case zoneWork, zoneRoot, zoneScratch:
		return ""
	case zoneGit:
		return "writes into .git"
	}
	for _, d := range []string{"/etc", "/usr", "/boot", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/sys", "/proc", "/var", "/System", "/Library"} {
		if pathWithin(real, d) {
			return c.granted("writes into system directory "+d, c.effect(real, false, grantWrite(real)))
		}
	}
	return c.granted("writes outside the workspace", c.effect(real, false, grantWrite(real)))
}

var safeDevices = sync.OnceValue(func() map[string]bool {
	return nameSet("/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin",
		"/dev/tty", "/dev/full", "/dev/random", "/dev/urandom")
})

// persistWhy names files whose change persists beyond the session.
func (e *guardPaths) persistWhy(p string) string {
	for _, h := range []string{e.homeLex, e.home, "/root"} {
		if h == "/" || !pathWithin(p, h) || p == h {
			continue
		}
		rel := strings.TrimPrefix(p, h+"/")
		switch {
		case rel == ".ssh/authorized_keys" || strings.HasPrefix(rel, ".ssh/authorized_keys"):
			return "grants SSH access (authorized_keys)"
		case rel == ".gitconfig" || rel == ".config/git/config":
			return "changes the global git config"
		case strings.HasPrefix(rel, ".config/systemd/"), strings.HasPrefix(rel, "Library/LaunchAgents/"):
			return "installs a persistent service"
		case secrets.StartupFile(rel) != "":
			return "modifies a shell or tool startup file"
		}
	}
	if strings.HasPrefix(p, "/etc/cron") || strings.HasPrefix(p, "/var/spool/cron") {
		return "installs a scheduled job"
	}
	return ""
}

// deleteWhy judges deleting a; recursive for rm -r and friends. Only
// literal paths to regenerable artifacts, single workspace files and
// scratch folders under /tmp are fine.
func (c *cmdChecker) deleteWhy(a shArg, recursive bool) string {
	if !a.ok {
		return "deletes a path it cannot resolve"
	}
	p := c.abs(a.val)
	if p == "" && c.remote {
		return "deletes files on a remote host"
	} else if p == "" {
		return "deletes a relative path after a cd it cannot resolve"
	}
	if _, isLink := c.shared.links[p]; !isLink || strings.HasSuffix(a.val, "/") {
		p = c.viaLinks(p) // below a fresh link is below its target; rm link removes the link
	}
	if a.glob {
		dir := c.env.real(globLiteralDir(p), true)
		pat := filepath.Base(p)
		if c.env.isScratchRoot(dir) && filepath.Dir(p) == globLiteralDir(p) && strings.IndexAny(pat, "*?[") >= 3 {
			// /tmp/aci-*: a named family of scratch folders, unless some
			// exist on the machine (a contained command would see only
			// its session's own /tmp).
			if m, _ := filepath.Glob(filepath.Join(dir, pat)); len(m) > 0 {
				return c.granted("deletes files that exist on the machine by wildcard", dir)
			}
			return ""
		}
		switch c.env.zoneOf(dir) {
		case zoneScratch:
			return ""
		case zoneWork, zoneRoot:
			// Fine inside an artifact folder, or when only artifact names
			// match (*.o, **/__pycache__).
			if isBuildArtifact(pat) || isBuildArtifact(c.env.relWork(dir)) {
				return ""
			}
			return "deletes workspace files by wildcard"
		case zoneGit:
			return "deletes git history (.git)"
		}
		return c.granted("deletes outside the workspace by wildcard", grantWrite(dir))
	}
	real := c.env.real(p, strings.HasSuffix(a.val, "/"))
	if real == "/" {
		return c.granted("deletes the root filesystem", "/")
	}
	// Deleting what holds the workspace, the home folder or the sandbox's
	// own writable folders needs the whole machine: "/".
	switch c.env.zoneOf(real) {
	case zoneRoot:
		return c.granted("deletes the whole workspace", "/")
	case zoneAncestor:
		return c.granted("deletes a directory holding the workspace", "/")
	case zoneHome:
		if real == c.env.home || real == c.env.homeLex {
			return c.granted("deletes the home directory", "/")
		}
		return c.granted("deletes outside the workspace", "/")
	case zoneGit:
		if !recursive && strings.HasSuffix(real, ".lock") {
			return "" // a stale index.lock
		}
		return "deletes git history (.git)"
	case zoneScratch:
		return ""
	case zoneWork:
		if isBuildArtifact(c.env.relWork(real)) {
			return ""
		}
		if !recursive {
			return ""
		}
		// A file, or nothing (unless this command put something there
		// first: mv src x && rm -rf x), loses no folder of sources.
		fi, err := os.Lstat(real)
		if err == nil && !fi.IsDir() || os.IsNotExist(err) && !c.createdHere(real) {
			return ""
		}
		return "recursively deletes workspace sources"
	}
	return c.granted("deletes outside the workspace", c.effect(real, true, grantDelete(real)))
}

// createdHere reports a path this command created or moved something to
// before, or one inside or holding such a path.
func (c *cmdChecker) createdHere(p string) bool {
	for k := range c.created {
		if pathWithin(p, k) || pathWithin(k, p) {
			return true
		}
	}
	return false
}

// markCreated records a destination written by mv, cp, ln, mkdir ...
func (c *cmdChecker) markCreated(a shArg) {
	if p := c.abs(a.val); a.ok && p != "" {
		c.created[c.env.real(p, false)] = true
	}
}

// moveWhy judges moving a away from where it is.
func (c *cmdChecker) moveWhy(a shArg) string {
	if !a.ok {
		return "moves a path it cannot resolve"
	}
	p := c.abs(a.val)
	if p == "" {
		return "moves a relative path after a cd it cannot resolve"
	}
	if a.glob {
		p = globLiteralDir(p)
		real := c.env.real(p, true)
		if z := c.env.zoneOf(real); z == zoneWork || z == zoneRoot || z == zoneScratch {
			return ""
		}
		return c.granted("moves files outside the workspace", grantWrite(real))
	}
	real := c.env.real(p, false)
	switch c.env.zoneOf(real) {
	case zoneWork, zoneScratch:
		return ""
	case zoneRoot, zoneAncestor:
		return c.granted("moves the workspace away", "/")
	case zoneGit:
		return "moves git history (.git)"
	case zoneHome:
		return c.granted("moves the home directory", "/")
	}
	return c.granted("moves files outside the workspace", c.effect(real, true, grantDelete(real)))
}

func ruleRm(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "", nil)
	if p.has("--no-preserve-root") {
		return "deletes without the root safeguard"
	}
	rec := p.has("-r", "-R", "--recursive")
	first := ""
	for _, a := range p.ops {
		// Every operand is judged, so that all the paths it deletes
		// outside the workspace are granted once allowed.
		if why := c.deleteWhy(a, rec); why != "" && first == "" {
			first = why
		}
	}
	if first != "" {
		return first
	}
	if in.extra {
		return "deletes paths read from input"
	}
	return ""
}

// ruleRimraf judges rimraf-style deleters: recursive, and globbing their
// own operands.
func ruleRimraf(c *cmdChecker, in *guardCall) string {
	for _, a := range parseCmdArgs(in.args, "", nil).ops {
		if a.ok && strings.ContainsAny(a.val, "*?[{") {
			a.glob = true
		}
		if why := c.deleteWhy(a, true); why != "" {
			return why
		}
	}
	return ""
}

func ruleUnlink(c *cmdChecker, in *guardCall) string {
	for _, a := range cmdOperands(in.args) {
		if why := c.deleteWhy(a, false); why != "" {
			return why
		}
	}
	if in.extra {
		return "deletes paths read from input"
	}
	return ""
}

func ruleShred(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "nsx", nameSet("--iterations", "--size", "--random-source"))
	for _, a := range p.ops {
		if a.ok && strings.HasPrefix(c.abs(a.val), "/dev/") {
			return "overwrites a raw device"
		}
		if why := c.deleteWhy(a, false); why != "" {
			return strings.Replace(why, "deletes", "shreds", 1)
		}
	}
	if in.extra {
		return "shreds paths read from input"
	}
	return ""
}

// copyDest splits copy-like operands into sources and destination.
func copyDest(p parsedArgs, in *guardCall) (srcs []shArg, dst *shArg) {
	if t, ok := p.get("-t", "--target-directory"); ok {
		a := litArg(t)
		return p.ops, &a
	}
	if len(p.ops) < 2 || in.extra {
		return p.ops, nil
	}
	last := p.ops[len(p.ops)-1]
	return p.ops[:len(p.ops)-1], &last
}

func ruleMv(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "tS", nameSet("--target-directory", "--suffix"))
	srcs, dst := copyDest(p, in)
	if dst == nil && in.extra {
		return "moves paths read from input"
	}
	for _, a := range srcs {
		if why := c.moveWhy(a); why != "" {
			return why
		}
	}
	if dst != nil {
		return c.writeWhy(*dst)
	}
	return ""
}

// trackMkdir records new folders: deleting them later in the command
// loses nothing.
func trackMkdir(c *cmdChecker, in *guardCall) {
	for _, a := range parseCmdArgs(in.args, "m", nameSet("--mode", "--context")).ops {
		c.markCreated(a)
	}
}

func ruleCp(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "tS", nameSet("--target-directory", "--suffix"))
	_, dst := copyDest(p, in)
	if dst == nil {
		if in.extra {
			return "copies paths read from input"
		}
		return ""
	}
	return c.writeWhy(*dst)
}

func ruleInstall(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "mogSt", nameSet("--mode", "--owner", "--group", "--suffix", "--target-directory"))
	if p.has("-d", "--directory") {
		for _, a := range p.ops {
			if why := c.writeWhy(a); why != "" {
				return why
			}
		}
		return ""
	}
	if _, dst := copyDest(p, in); dst != nil {
		return c.writeWhy(*dst)
	}
	return ""
}

func ruleLn(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "tS", nameSet("--target-directory", "--suffix"))
	if _, dst := copyDest(p, in); dst != nil {
		return c.writeWhy(*dst)
	}
	return ""
}

// trackLn remembers the link: reading or writing it later in the command
// reaches its target.
func trackLn(c *cmdChecker, in *guardCall) {
	p := parseCmdArgs(in.args, "tS", nameSet("--target-directory", "--suffix"))
	if _, dst := copyDest(p, in); dst != nil {
		c.markCreated(*dst)
	}
	if len(p.ops) != 2 || !p.ops[0].ok || !p.ops[1].ok {
		return
	}
	t := p.ops[0].val
	if p.has("-s", "--symbolic") && !filepath.IsAbs(t) && !strings.HasPrefix(t, "~") {
		t = filepath.Join(filepath.Dir(p.ops[1].val), t) // relative to the link
	}
	if l, t := c.abs(p.ops[1].val), c.abs(t); l != "" && t != "" {
		c.shared.links[l] = t
		if !p.has("-s", "--symbolic") && c.shared.copies != nil {
			c.shared.copies[l] = t // a hard link: the same content, under another name
		}
	}
}
