package guard

import (
	"path/filepath"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Rules for commands that run other code: shells, interpreters, eval,
// source, trap, alias, ssh, awk and find -exec.

type invKind int

const (
	invNone   invKind = iota // nothing runs (e.g. bash -c with no script)
	invStdin                 // reads the program from stdin
	invCode                  // inline code (-c, -e)
	invFile                  // a script file
	invModule                // python -m
)

type langInvocation struct {
	mode    invKind
	code    []shArg
	file    shArg
	module  string
	rest    []shArg // arguments after the module
	inplace bool    // perl/ruby -i
	files   []shArg // operands after inline code
}

func parseShellArgs(args []shArg) langInvocation {
	cmode, smode := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val
		if a.ok && v == "--" {
			if i+1 >= len(args) {
				break
			}
			i++
			a, v = args[i], args[i].val
		} else if a.ok && len(v) > 1 && (v[0] == '-' || v[0] == '+') {
			if strings.HasPrefix(v, "--") {
				if v == "--rcfile" || v == "--init-file" {
					i++
				}
				continue
			}
			letters := v[1:]
			cmode = cmode || v[0] == '-' && strings.ContainsRune(letters, 'c')
			smode = smode || v[0] == '-' && strings.ContainsRune(letters, 's')
			if strings.ContainsAny(letters, "oO") {
				i++
			}
			continue
		}
		switch {
		case cmode:
			return langInvocation{mode: invCode, code: []shArg{a}}
		case smode || a.ok && (v == "-" || v == "/dev/stdin"):
			return langInvocation{mode: invStdin}
		}
		return langInvocation{mode: invFile, file: a}
	}
	if cmode {
		return langInvocation{mode: invNone}
	}
	return langInvocation{mode: invStdin}
}

// argAnchor is the node to highlight for an argument.
func argAnchor(a shArg, in *guardCall) syntax.Node {
	if a.word != nil {
		return a.word
	}
	return in.node
}

func ruleShell(c *cmdChecker, in *guardCall) string {
	inv := parseShellArgs(in.args)
	switch inv.mode {
	case invCode:
		a := inv.code[0]
		if a.proc != nil || !a.ok {
			return "runs a script it cannot resolve"
		}
		c.nested(a.val, argAnchor(a, in), false)
	case invFile:
		return c.runFile(inv.file, in)
	}
	return ""
}

// runFile judges running a script file: fine when local, dangerous when
// downloaded, fed by <(...) or unresolvable.
func (c *cmdChecker) runFile(a shArg, in *guardCall) string {
	switch {
	case a.proc != nil:
		use := shellStdin
		if !specOf(in.name).shell && in.name != "source" && in.name != "." {
			use = stdinUse{kind: stdinCode, lang: in.name}
		}
		c.feeder(lastStmtOf(a.proc.Stmts), in.node, use)
		return ""
	case !a.ok:
		return "runs a script it cannot resolve"
	case strings.Contains(a.val, "://"):
		return "runs downloaded code"
	case c.downloads[c.abs(a.val)] || c.fetchedPath(c.abs(a.val)):
		return "runs downloaded code"
	}
	use := shellStdin
	if !specOf(in.name).shell && in.name != "source" && in.name != "." {
		use = stdinUse{kind: stdinCode, lang: in.name}
	}
	if p := c.abs(a.val); !c.runsWritten(p, in.node, use) && use.lang == "" {
		c.judgeRecentScript(p, in.node, true)
	}
	return ""
}

// Per-language flags: short letters taking inline code and taking a value.
var (
	codeLetters = map[string]string{"python": "c", "perl": "eE", "ruby": "e", "node": "ep", "bun": "e",
		"php": "r", "lua": "e", "Rscript": "e", "osascript": "e", "pwsh": "c", "powershell": "c"}
	valLetters = map[string]string{"python": "WXQ", "perl": "MmIFxCdDl0", "ruby": "rICEFxTWK",
		"node": "r", "php": "dcfz", "lua": "l", "osascript": "l", "bun": "r"}
	longCodeFlags = sync.OnceValue(func() map[string]bool {
		return nameSet("--eval", "--print", "-command", "--command", "-encodedcommand", "-enc", "-ec")
	})
)

func parseInterpArgs(lang string, args []shArg) langInvocation {
	var inv langInvocation
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val
		if !a.ok || !strings.HasPrefix(v, "-") || v == "-" {
			switch {
			case len(inv.code) > 0:
				inv.files = append(inv.files, args[i:]...)
				i = len(args)
				continue
			case a.ok && v == "-":
				inv.mode = invStdin
				return inv
			case lang == "deno" && a.ok && v == "eval" && i+1 < len(args):
				inv.code = append(inv.code, args[i+1])
				i++
				continue
			case (lang == "deno" || lang == "bun") && a.ok && v == "run":
				continue
			}
			inv.mode, inv.file, inv.rest = invFile, a, args[i+1:]
			return inv
		}
		lower := strings.ToLower(v)
		if name, val, eq := strings.Cut(lower, "="); longCodeFlags()[name] || lang == "pwsh" && (name == "-c" || name == "-e") {
			code := shArg{val: val, ok: true}
			if !eq && i+1 < len(args) {
				i++
				code = args[i]
			}
			if strings.HasPrefix(name, "-e") || name == "-encodedcommand" {
				code.ok = false // base64: cannot be read
			}
			inv.code = append(inv.code, code)
			continue
		}
		if strings.HasPrefix(v, "--") {
			if v == "--require" || v == "--import" || v == "--loader" {
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			ch, rest := v[j], v[j+1:]
			if strings.IndexByte(codeLetters[lang], ch) >= 0 {
				if rest != "" {
					inv.code = append(inv.code, litArg(rest))
				} else if i+1 < len(args) {
					i++
					inv.code = append(inv.code, args[i])
				}
				break
			}
			if lang == "python" && ch == 'm' {
				inv.mode, inv.module = invModule, rest
				if rest == "" && i+1 < len(args) {
					i++
					inv.module = args[i].val
				}
				inv.rest = args[i+1:]
				return inv
			}
			if ch == 'i' && (lang == "perl" || lang == "ruby") {
				inv.inplace = true
				break
			}
			if strings.IndexByte(valLetters[lang], ch) >= 0 {
				if rest == "" {
					i++
				}
				break
			}
		}
	}
	switch {
	case len(inv.code) > 0:
		inv.mode = invCode
	case inv.mode == invNone:
		inv.mode = invStdin
	}
	return inv
}

func ruleInterp(c *cmdChecker, in *guardCall) string {
	inv := parseInterpArgs(in.name, in.args)
	switch inv.mode {
	case invCode:
		vals := make([]string, 0, len(inv.code))
		for _, a := range inv.code {
			if !a.ok {
				return "runs code it cannot resolve"
			}
			vals = append(vals, a.val)
		}
		if why := c.codeWhy(in.name, strings.Join(vals, "\n"), in.node, 0); why != "" {
			return why
		}
	case invFile:
		if why := c.runFile(inv.file, in); why != "" {
			return why
		}
		switch filepath.Base(inv.file.val) {
		case "manage.py", "artisan":
			if why := ruleDBTask(c, &guardCall{name: inv.file.val, args: inv.rest}); why != "" {
				return why
			}
		}
	case invModule:
		if inv.module == "pip" {
			return rulePip(c, &guardCall{name: "pip", args: inv.rest, node: in.node})
		}
	}
	if inv.inplace {
		for _, f := range inv.files {
			if why := c.writeWhy(f); why != "" {
				return c.editsInPlace(why)
			}
		}
	}
	return ""
}

func ruleEval(c *cmdChecker, in *guardCall) string {
	vals := make([]string, 0, len(in.args))
	for _, a := range in.args {
		if !a.ok {
			return "evaluates code it cannot resolve"
		}
		vals = append(vals, a.val)
	}
	if in.extra {
		return "evaluates code read from input"
	}
	c.nested(strings.Join(vals, " "), in.node, false)
	return ""
}

func ruleSource(c *cmdChecker, in *guardCall) string {
	ops := cmdOperands(in.args)
	if len(ops) == 0 {
		return ""
	}
	return c.runFile(ops[0], in)
}

func ruleTrap(c *cmdChecker, in *guardCall) string {
	ops := cmdOperands(in.args)
	if len(ops) == 0 || hasLitArg(in.args, "-l", "-p") {
		return ""
	}
	a := ops[0]
	if !a.ok {
		return "sets a trap it cannot resolve"
	}
	if a.val != "" && a.val != "-" {
		c.nested(a.val, argAnchor(a, in), false)
	}
	return ""
}

func ruleAlias(c *cmdChecker, in *guardCall) string {
	for _, a := range in.args {
		if !a.ok {
			return "defines an alias it cannot resolve"
		}
		if _, v, ok := strings.Cut(a.val, "="); ok {
			c.nested(v, argAnchor(a, in), false)
		}
	}
	return ""
}

func ruleSSH(c *cmdChecker, in *guardCall) string {
	const val = "BbcDEeFIiJLlmOoPpQRSWw"
	var ops []shArg
	for i := 0; i < len(in.args); i++ {
		a := in.args[i]
		v := a.val
		if len(ops) > 0 || !a.ok || !strings.HasPrefix(v, "-") {
			ops = append(ops, a)
			continue
		}
		if v == "-R" || strings.HasPrefix(v, "-R") && len(v) > 2 {
			return "opens a tunnel from a remote host into this machine (ssh -R)"
		}
		if len(v) == 2 && strings.IndexByte(val, v[1]) >= 0 && i+1 < len(in.args) {
			i++ // the value; ssh -o ProxyCommand= is judged with the options that run programs
		}
	}
	if len(ops) < 2 {
		return ""
	}
	vals := make([]string, 0, len(ops)-1)
	for _, a := range ops[1:] {
		if !a.ok {
			return "runs a remote command it cannot resolve"
		}
		vals = append(vals, a.val)
	}
	c.nested(strings.Join(vals, " "), in.node, true)
	return ""
}

func ruleAwk(c *cmdChecker, in *guardCall) string {
	var prog *shArg
	var files []shArg
	inplace := false
	for i := 0; i < len(in.args); i++ {
		a := in.args[i]
		v := a.val
		switch {
		case prog != nil:
			files = append(files, a)
		case a.ok && (v == "-f" || v == "--file"):
			return "" // the program is a file
		case a.ok && (v == "-F" || v == "-v" || v == "--assign" || v == "--field-separator"):
			i++
		case a.ok && (v == "-i" || v == "--include") && i+1 < len(in.args):
			inplace = inplace || in.args[i+1].val == "inplace"
			i++
		case a.ok && strings.HasPrefix(v, "-") && v != "-":
		default:
			prog = &in.args[i]
		}
	}
	if prog == nil {
		return ""
	}
	if why := c.codeWhy("awk", prog.val, in.node, 0); why != "" {
		return why
	}
	if inplace {
		for _, f := range files {
			if why := c.writeWhy(f); why != "" {
				return c.editsInPlace(why)
			}
		}
	}
	return ""
}
