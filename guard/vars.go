package guard

import (
	"path/filepath"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// commandVars hold commands that programs run later (git runs
// GIT_SSH_COMMAND, man runs PAGER).
var commandVars = sync.OnceValue(func() map[string]bool {
	return nameSet("GIT_SSH_COMMAND", "GIT_SSH", "GIT_EDITOR", "GIT_PAGER", "GIT_SEQUENCE_EDITOR",
		"GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "PAGER", "MANPAGER", "EDITOR",
		"VISUAL", "PROMPT_COMMAND", "LESSOPEN", "LESSCLOSE", "BROWSER", "FZF_DEFAULT_COMMAND",
		"GIT_PROXY_COMMAND", "RSYNC_RSH", "CVS_RSH", "FCEDIT", "SYSTEMD_PAGER", "GH_PAGER", "GH_EDITOR")
})

// sourcedVars make a program load code: a file a shell sources, a library
// the loader injects, options that require modules.
var sourcedVars = sync.OnceValue(func() map[string]bool {
	return nameSet("BASH_ENV", "ENV", "ZDOTDIR", "LD_PRELOAD", "LD_AUDIT",
		"DYLD_INSERT_LIBRARIES", "PYTHONSTARTUP", "NODE_OPTIONS", "PERL5OPT", "RUBYOPT", "GIT_EXEC_PATH")
})

// commandVar judges assignments whose value is run as a command.
func (c *cmdChecker) commandVar(a *syntax.Assign) {
	if a == nil || a.Name == nil || a.Value == nil {
		return
	}
	name := a.Name.Value
	if l := strings.ToLower(name); strings.Contains(l, "script_shell") || strings.Contains(l, "script-shell") || name == "MAKEFLAGS" || name == "GNUMAKEFLAGS" {
		v, ok := c.literal(a.Value)
		if !ok || name == "MAKEFLAGS" && (strings.Contains(v, "--eval") || strings.Contains(v, "-E") || strings.Contains(v, "SHELL=")) ||
			strings.Contains(l, "shell") && !specOf(canonCmd(v)).shell {
			c.flag(a, "changes the program that runs scripts through "+name)
			return
		}
	}
	if strings.HasPrefix(name, "GIT_CONFIG_") {
		v, ok := c.literal(a.Value)
		if why := c.gitEnvConfigWhy(name, v, ok); why != "" {
			c.flag(a, why)
			return
		}
	}
	switch {
	case commandVars()[name]:
		v, ok := c.literal(a.Value)
		if !ok {
			c.flag(a, "sets a command variable it cannot resolve")
			return
		}
		if name == "LESSOPEN" || name == "LESSCLOSE" {
			v = strings.TrimLeft(v, "|-") // "|cmd %s": less pipes from cmd
		}
		c.nested(v, a.Value, false)
	case sourcedVars()[name]:
		v, ok := c.literal(a.Value)
		if !ok {
			c.flag(a, "injects code it cannot resolve through "+name)
			return
		}
		switch name {
		case "NODE_OPTIONS", "PERL5OPT", "RUBYOPT":
			// Memory and warning flags are fine; flags that load code are not.
			for _, f := range strings.Fields(v) {
				for _, pre := range []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "-M", "-m", "-e", "--eval", "-I"} {
					if f == pre || strings.HasPrefix(f, pre+"=") || len(pre) == 2 && strings.HasPrefix(f, pre) {
						c.flag(a, "injects code through "+name)
						return
					}
				}
			}
		case "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "GIT_EXEC_PATH":
			// Only libraries built in the workspace.
			for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ' ' }) {
				if q := c.abs(p); q == "" || c.env.zoneOf(c.env.real(q, true)) != zoneWork {
					c.flag(a, "injects code through "+name)
					return
				}
			}
		default:
			c.flag(a, "injects code through "+name)
		}
	}
}

func (c *cmdChecker) declClause(x *syntax.DeclClause) {
	saved := c.envLoad
	c.envLoad = true // export $(grep -v '^#' .env | xargs): loads, shows nothing
	for _, a := range x.Args {
		c.substs(a)
	}
	c.envLoad = saved
	export := x.Variant != nil && x.Variant.Value == "export"
	for _, a := range x.Args {
		c.commandVar(a)
		if export {
			c.programVar(a)
		}
		c.assign(a)
	}
}

// assign tracks NAME=literal so later expansions resolve; anything
// conditional or non-literal makes the variable unknown.
func (c *cmdChecker) assign(a *syntax.Assign) {
	if a == nil || a.Name == nil || a.Naked {
		return
	}
	name := a.Name.Value
	if a.Array != nil || a.Index != nil || a.Append || c.cond > 0 {
		delete(c.vars, name)
		return
	}
	if a.Value == nil {
		c.vars[name] = ""
		return
	}
	if v, ok := c.literal(a.Value); ok {
		c.vars[name] = v
	} else if v, ok := c.mktemp(a.Value); ok {
		c.vars[name] = v
	} else {
		delete(c.vars, name)
		if c.decodesIn(a.Value) {
			c.shared.decoded[name] = true
		}
	}
}

// mktemp resolves w when it is exactly $(mktemp ...): a fresh path whose
// directory is known, so "rm -rf $tmp" later can be judged.
func (c *cmdChecker) mktemp(w *syntax.Word) (string, bool) {
	parts := w.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return "", false
	}
	cs, ok := parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return "", false
	}
	ce, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || len(cs.Stmts[0].Redirs) > 0 {
		return "", false
	}
	in := c.effective(ce)
	if in.name != "mktemp" {
		return "", false
	}
	p := parseCmdArgs(in.args, "p", nameSet("--tmpdir", "--suffix"))
	tmpl := "tmp.XXXXXXXXXX"
	if len(p.ops) > 1 || len(p.ops) == 1 && !p.ops[0].ok {
		return "", false
	}
	if len(p.ops) == 1 {
		tmpl = p.ops[0].val
	}
	dir, hasDir := p.get("-p", "--tmpdir")
	switch {
	case filepath.IsAbs(tmpl):
		return tmpl, true
	case hasDir || p.has("-t") || len(p.ops) == 0:
		if dir == "" {
			dir = c.env.tmp
		}
		return filepath.Join(c.abs(dir), tmpl), c.abs(dir) != ""
	}
	return c.abs(tmpl), c.abs(tmpl) != ""
}

// programVar judges a variable handed to a program (X=v cmd, export X=v)
// whose name says it holds a program to run (the generic rule of
// cmdopts.go: MY_TOOL_COMMAND, DIFF_PAGER, SVN_EDITOR): a value that
// reads as a command line is judged as one.
func (c *cmdChecker) programVar(a *syntax.Assign) {
	if a == nil || a.Name == nil || a.Value == nil || commandVars()[a.Name.Value] || sourcedVars()[a.Name.Value] ||
		!namesProgram(a.Name.Value) {
		return
	}
	if v, ok := c.literal(a.Value); ok && parsesAsShell(v) {
		c.nested(v, a.Value, false)
	}
}
