package guard

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// guardCall is a simple command after its wrappers (env, timeout, nice,
// xargs ...) are peeled off.
type guardCall struct {
	name       string // canonical base name of what runs
	path       string // the command word as resolved (./x.sh, /bin/rm)
	args       []shArg
	extra      bool   // xargs appends arguments read from stdin
	unresolved bool   // the command name itself cannot be resolved
	globName   bool   // the command name is a wildcard pattern
	runnerWhy  string // a package runner fetching unpinned code (npx x@latest)
	priv       string // a wrapper that escalates privileges
	chdir      *shArg // env -C
	node       *syntax.CallExpr
}

// call judges one simple command.
func (c *cmdChecker) call(ce *syntax.CallExpr) *guardCall {
	for _, a := range ce.Assigns {
		c.substs(a)
		c.commandVar(a)
		if len(ce.Args) > 0 {
			c.programVar(a)
		}
	}
	// export $(grep -v '^#' .env | xargs) loads a .env into the shell:
	// the substitution reads it, but nothing is printed.
	saved := c.envLoad
	if len(ce.Args) > 0 {
		switch ce.Args[0].Lit() {
		case "export", "env", "declare", "set", "typeset":
			c.envLoad = true
		}
	}
	for _, w := range ce.Args {
		c.substs(w)
	}
	c.envLoad = saved
	if c.found != nil {
		return nil
	}
	if len(ce.Args) == 0 {
		for _, a := range ce.Assigns {
			c.assign(a)
		}
		return nil
	}
	in := c.effective(ce)
	c.judge(in)
	return in
}

// effective resolves the words of ce and peels wrappers, without judging.
func (c *cmdChecker) effective(ce *syntax.CallExpr) *guardCall {
	in := &guardCall{node: ce, args: c.words(ce.Args)}
	c.unwrap(in)
	return in
}

// unwrap peels wrappers that run their arguments as a command.
func (c *cmdChecker) unwrap(in *guardCall) {
	for steps := 0; steps < 32; steps++ {
		if len(in.args) == 0 {
			in.name = ""
			return
		}
		a0 := in.args[0]
		if !a0.ok {
			in.unresolved, in.name, in.path = true, "", a0.val
			return
		}
		if a0.glob && a0.val != "[" && a0.val != "[[" {
			// /???/r? or r[m]: the shell picks the program from the disk.
			in.unresolved, in.globName, in.name, in.path = true, true, "", a0.val
			return
		}
		in.path = a0.val
		in.name = canonCmd(a0.val)
		rest := in.args[1:]
		if specOf(in.name).priv {
			in.priv = in.name
			return
		}
		next, more := c.peel(in, rest)
		if !more {
			in.args = rest
			return
		}
		in.args = next
	}
}

// judge applies the rules to one effective command.
func (c *cmdChecker) judge(in *guardCall) {
	n := syntax.Node(in.node)
	switch {
	case in.runnerWhy != "":
		c.flag(n, in.runnerWhy)
		return
	case in.globName:
		c.flag(n, "runs a command named by a wildcard pattern")
		return
	case in.unresolved:
		c.flag(n, "runs a command whose name cannot be resolved")
		return
	case in.priv != "":
		c.flag(n, c.needsMachine("escalates privileges ("+in.priv+")"))
		return
	case in.name == "":
		return
	}
	if strings.Contains(in.path, "/") {
		if p := c.abs(in.path); c.downloads[p] || c.fetchedPath(p) {
			c.flag(n, "runs downloaded code")
			return
		} else if c.runsWritten(p, n, shellStdin) || c.judgeRecentScript(p, n, false) {
			return
		}
	}
	if in.chdir != nil {
		saved := c.cwd
		c.cd([]shArg{*in.chdir})
		defer func() { c.cwd = saved }()
	}
	spec := specOf(in.name)
	if why := credWhy(in, spec); why != "" {
		c.flag(n, why)
		return
	}
	if spec.judge != nil {
		// A judge works on a copy of the walker: what it finds (its reason,
		// or the finding of a nested script it hands on) comes back as its
		// result, and it cannot move the walk (cwd, variables, sink).
		jc := *c
		jc.found = nil
		why := spec.judge(&jc, in)
		switch {
		case jc.found != nil:
			c.found = jc.found
		case why != "":
			c.flag(n, why)
		}
	}
	if c.found == nil {
		if why := c.runOptionsWhy(in); why != "" {
			c.flag(n, why)
		}
	}
	if spec.track != nil {
		spec.track(c, in)
	}
	if c.found != nil {
		return
	}
	if why := c.egressWhy(in, spec); why != "" {
		c.flag(n, why)
		return
	}
	if !spec.projSecretOK && !c.envLoad && (spec.inPlace == nil || !spec.inPlace(in.args)) {
		for i, a := range in.args {
			if envFileArg(in.args, i) {
				continue
			}
			if why := c.secretNameArg(a); why != "" {
				c.flag(n, why)
				return
			}
		}
	}
	if why := c.hiddenArgWhy(in, spec); why != "" {
		c.flag(n, why)
		return
	}
	if spec.secretOK {
		return
	}
	dirs := spec.dirs != nil && spec.dirs(in.args)
	for _, a := range in.args {
		if why := c.secretArg(a, dirs); why != "" {
			c.flag(n, why)
			return
		}
	}
}

func recursiveGrep(args []shArg) bool {
	for _, a := range args {
		v := a.val
		if v == "--recursive" || v == "--dereference-recursive" ||
			strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v, "rR") {
			return true
		}
	}
	return false
}

// argPath is the path an argument may name a file by: itself, the value
// of --opt=path, or what follows @ (curl's -d @path, name=@path).
func argPath(v string) string {
	if strings.HasPrefix(v, "-") {
		_, v, _ = strings.Cut(v, "=")
	}
	if i := strings.Index(v, "=@"); i >= 0 {
		v = v[i+2:]
	}
	return strings.TrimPrefix(v, "@")
}

// secretArg reports an argument naming a secret file (also as --opt=path or
// name=@path).
func (c *cmdChecker) secretArg(a shArg, dirs bool) string {
	if !a.ok {
		return ""
	}
	v := argPath(a.val)
	if v == "" || strings.HasPrefix(v, "-") || strings.Contains(v, "://") {
		return ""
	}
	p := c.abs(v)
	if p == "" {
		return ""
	}
	if a.glob {
		p = globLiteralDir(p)
		dirs = true
	}
	p = c.viaLinks(p)
	real := c.env.real(p, true)
	for _, q := range []string{p, real} {
		if why := c.env.secretWhy(q, dirs); why != "" {
			return why
		}
	}
	if !a.glob && !c.remote {
		return c.env.hardLinkWhy(real)
	}
	return ""
}

// abs makes p absolute against the tracked working directory; "" when a cd
// could not be resolved or the command runs on another host.
func (c *cmdChecker) abs(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = c.env.homeLex + p[1:]
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if c.cwd == "" || c.remote {
		return ""
	}
	return filepath.Join(c.cwd, p)
}

// globLiteralDir is the literal directory part of a glob pattern.
func globLiteralDir(p string) string {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return p
	}
	d := filepath.Dir(p[:i+1])
	return d
}

// cd follows a directory change; unknown targets make the cwd unknown.
func (c *cmdChecker) cd(args []shArg) {
	ops := cmdOperands(args)
	if len(ops) == 0 {
		c.cwd = c.env.homeLex
		return
	}
	a := ops[0]
	if !a.ok && c.scriptDir != "" && (strings.Contains(a.val, "$0") || strings.Contains(a.val, "BASH_SOURCE")) &&
		(strings.Contains(a.val, "dirname") || strings.Contains(a.val, "%/*")) {
		c.cwd = c.scriptDir // cd "$(dirname "$0")": the script's own folder
		return
	}
	if !a.ok || a.glob || a.val == "-" {
		c.cwd = ""
		return
	}
	c.cwd = c.abs(a.val)
}

// cmdOperands are the non-option arguments (after "--" everything is one).
func cmdOperands(args []shArg) []shArg {
	var out []shArg
	dash := false
	for _, a := range args {
		if !dash && a.ok && a.val == "--" {
			dash = true
			continue
		}
		if !dash && a.ok && strings.HasPrefix(a.val, "-") && a.val != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// viaLinks maps p through the links this command made earlier: a path
// below a fresh link is really below its target.
func (c *cmdChecker) viaLinks(p string) string {
	for l, t := range c.shared.links {
		if pathWithin(p, l) {
			p = t + strings.TrimPrefix(p, l)
		}
	}
	return p
}

// envFileArg reports an argument that hands a secret file to a program to
// use (--env-file .env, curl --key client.key): the program
// reads it, nobody sees it.
func envFileArg(args []shArg, i int) bool {
	name := args[i].val
	if !strings.HasPrefix(name, "-") && i > 0 {
		name = args[i-1].val
	}
	name, _, _ = strings.Cut(name, "=")
	if !strings.HasPrefix(name, "-") {
		return false
	}
	l := strings.ToLower(name)
	for _, w := range []string{"env", "key", "cert", "identity", "tls", "ssl", "secret"} {
		if strings.Contains(l, w) {
			return true // --env-file .env, curl --key client.key: the program uses it
		}
	}
	return false
}
