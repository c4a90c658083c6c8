package guard

import (
	"strings"
	"sync"
)

// Rules for permission and ownership changes.

// chmodFlags are chmod's switches; any other "-..." word is a mode (-x, -w).
var chmodFlags = sync.OnceValue(func() map[string]bool {
	return nameSet("-R", "--recursive", "-c", "-f", "-v", "--changes", "--silent", "--quiet",
		"--verbose", "--preserve-root", "-H", "-L", "-P", "-h", "--dereference", "--no-dereference")
})

func ruleChmod(c *cmdChecker, in *guardCall) string {
	var mode *shArg
	var targets []shArg
	ref := false
	for i := range in.args {
		a := in.args[i]
		switch {
		case a.ok && chmodFlags()[a.val]:
		case a.ok && a.val == "--no-preserve-root":
			return "changes permissions without the root safeguard"
		case a.ok && strings.HasPrefix(a.val, "--reference"):
			ref = true
		case mode == nil && !ref:
			mode = &in.args[i]
		default:
			targets = append(targets, a)
		}
	}
	if mode != nil && setuidMode(mode.val) {
		return "sets the setuid/setgid bit (privilege escalation)"
	}
	rec := hasLitArg(in.args, "-R", "--recursive")
	if rec && mode != nil && mode.ok && worldWritable(mode.val) {
		return "makes a whole tree writable by every user"
	}
	if !rec && (mode == nil || !mode.ok || !worldWritable(mode.val)) {
		// chmod 600 ~/.ssh/id_rsa, chmod +x ~/bin/tool: narrow changes to
		// one's own files are fine; system files stay off limits.
		home := make([]shArg, 0, len(targets))
		for _, a := range targets {
			if p := c.abs(a.val); a.ok && !a.glob && p != "" && pathWithin(p, c.env.homeLex) && p != c.env.homeLex {
				continue
			}
			home = append(home, a)
		}
		targets = home
	}
	return c.permTargets(targets, in, "changes permissions")
}

// worldWritable reports modes that let group or others write (777, o+w).
func worldWritable(m string) bool {
	if strings.Trim(m, "01234567") == "" {
		return len(m) >= 2 && ((m[len(m)-1]-'0')&2 != 0 || (m[len(m)-2]-'0')&2 != 0)
	}
	for _, clause := range strings.Split(m, ",") {
		i := strings.IndexAny(clause, "+=")
		if i >= 0 && strings.ContainsRune(clause[i:], 'w') && (i == 0 || strings.ContainsAny(clause[:i], "goa")) {
			return true
		}
	}
	return false
}

// setuidMode reports chmod modes that set setuid or setgid.
func setuidMode(m string) bool {
	if strings.Trim(m, "01234567") == "" {
		return len(m) >= 4 && (m[len(m)-4]-'0')&6 != 0
	}
	for _, clause := range strings.Split(m, ",") {
		if i := strings.IndexAny(clause, "+="); i >= 0 && strings.ContainsRune(clause[i:], 's') {
			return true
		}
	}
	return false
}

func (c *cmdChecker) permTargets(targets []shArg, in *guardCall, what string) string {
	if in.extra {
		return what + " of paths read from input"
	}
	for _, a := range targets {
		if !a.ok {
			return what + " of a path it cannot resolve"
		}
		p := c.abs(a.val)
		if p == "" {
			return what + " after a cd it cannot resolve"
		}
		if a.glob {
			p = globLiteralDir(p)
		}
		real := c.env.real(p, true)
		switch c.env.zoneOf(real) {
		case zoneWork, zoneRoot, zoneGit, zoneScratch:
			continue
		}
		return c.granted(what+" outside the workspace", grantWrite(real))
	}
	return ""
}

func ruleChown(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "", nameSet("--from", "--reference"))
	if p.has("-R", "--recursive") {
		return "changes ownership recursively"
	}
	ops := p.ops
	if !p.has("--reference") && len(ops) > 0 {
		ops = ops[1:]
	}
	return c.permTargets(ops, in, "changes ownership")
}

func ruleChattr(c *cmdChecker, in *guardCall) string {
	var targets []shArg
	for i, a := range in.args {
		if i == 0 || a.ok && (strings.HasPrefix(a.val, "-") || strings.HasPrefix(a.val, "+") || strings.HasPrefix(a.val, "=")) {
			continue
		}
		targets = append(targets, a)
	}
	return c.permTargets(targets, in, "changes file attributes")
}
