package guard

import (
	"strings"
	"sync"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// Options whose value is a program to run. Ordinary tools from every corner
// take one (rsync -e, tar --to-command, ssh -o ProxyCommand=, man -P,
// sort --compress-program, git fetch --upload-pack), so "rm -rf ~" hides
// as well behind an option as behind sh -c. Two layers find them:
//
//   - optionTable: per tool family, the options whose value the tool runs,
//     and how it reads the value (its kind below);
//   - the generic rule, for every tool: a long option whose name says it
//     holds a program (its words include command, cmd, exec, shell, pager,
//     editor, program, rsh, askpass), and a KEY=VALUE setting of such a
//     name (ssh -o ProxyCommand=...).
//
// Either way the value is judged by the same guard as the command line it
// is, so an option naming a harmless program (--rsh=ssh, -I zstd,
// --pager=less) passes and one hiding a dangerous command is asked as that
// command.

// optKind says how a tool uses an option's value.
type optKind uint8

const (
	// optShell: the value is a shell command line.
	optShell optKind = iota + 1
	// optProgram: a program and its arguments, split on spaces.
	optProgram
	// optSettings: KEY=VALUE settings; keys named like programs hold one.
	optSettings
	// optExecAction: an action list where exec=CMD runs CMD (tar).
	optExecAction
	// optEscape: a command of the tool's own language; its shell escape
	// (vim's and less's "!") runs the rest.
	optEscape
)

// runOpt is one option (all its spellings) and its kind.
type runOpt struct {
	names    string // "-e --rsh"
	kind     optKind
	attached bool // the value is optional and only ever attached (-Ovim, --opt=vim)
}

// optFamily is the options of one family of tools that run programs.
// shortVal lists the short letters that take a value, so a cluster such
// as -avze is read right.
type optFamily struct {
	cmds     string
	shortVal string
	opts     []runOpt
}

func optionTable() []optFamily {
	sshOpts := []runOpt{{names: "-o", kind: optSettings}, {names: "-S", kind: optProgram}, {names: "-D", kind: optProgram}}
	return []optFamily{
		{cmds: "rsync", shortVal: "efTB", opts: []runOpt{{names: "-e --rsh", kind: optProgram}, {names: "--rsync-path", kind: optShell}}},
		{cmds: "tar", shortVal: "fCbLTXgKNVHFI", opts: []runOpt{{names: "-I --use-compress-program", kind: optProgram},
			{names: "--to-command", kind: optShell}, {names: "-F --info-script --new-volume-script", kind: optShell},
			{names: "--checkpoint-action", kind: optExecAction}}},
		{cmds: "ssh", shortVal: "BbcDEeFIiJLlmOoPpQRSWw", opts: []runOpt{{names: "-o", kind: optSettings}}},
		{cmds: "scp sftp", shortVal: "cFiJlPoSDXBRs", opts: sshOpts},
		{cmds: "sshfs autossh mosh", shortVal: "oMp", opts: []runOpt{{names: "-o", kind: optSettings}, {names: "--ssh", kind: optProgram}}},
		{cmds: "hg", opts: []runOpt{{names: "--config", kind: optSettings}}},
		{cmds: "man", shortVal: "CMPSmLsepRrEHIK", opts: []runOpt{{names: "-P --pager", kind: optProgram}, {names: "-H --html", kind: optProgram}}},
		{cmds: "sort", shortVal: "kStTo", opts: []runOpt{{names: "--compress-program", kind: optProgram}}},
		{cmds: "zip", opts: []runOpt{{names: "-TT --unzip-command", kind: optShell}}},
		{cmds: "nano", opts: []runOpt{{names: "-s --speller", kind: optProgram}}},
		{cmds: "less more", opts: []runOpt{{names: "+", kind: optEscape}}},
		{cmds: "fzf", opts: []runOpt{{names: "--preview", kind: optShell}}},
		{cmds: "ctest", opts: []runOpt{{names: "--test-command", kind: optProgram}}},
	}
}

// runOptIndex maps a canonical command name to its family, built on first
// use so start-up stays cheap.
var runOptIndex = sync.OnceValue(func() map[string]*optFamily {
	m := map[string]*optFamily{}
	for _, f := range optionTable() {
		f := f
		for _, n := range strings.Fields(f.cmds) {
			m[n] = &f
		}
	}
	return m
})

// option is the declared option of fam spelled name ("-e", "--rsh").
func (fam *optFamily) option(name string) *runOpt {
	for i, o := range fam.opts {
		for _, n := range strings.Fields(o.names) {
			if n == name {
				return &fam.opts[i]
			}
		}
	}
	return nil
}

// optionKind is the kind of option name in fam, 0 when not declared.
func (fam *optFamily) optionKind(name string) optKind {
	if o := fam.option(name); o != nil {
		return o.kind
	}
	return 0
}

// separateValue reports whether option name of fam takes the next argument
// as its value.
func (fam *optFamily) separateValue(name string) bool {
	if o := fam.option(name); o != nil {
		return !o.attached
	}
	return namesProgram(name)
}

// programWords are the words of option and setting names that say the
// value is a program: --rsh, --exec, --script-shell, ProxyCommand.
var programWords = map[string]bool{"command": true, "commands": true, "cmd": true, "exec": true,
	"shell": true, "program": true, "prog": true, "pager": true, "editor": true, "rsh": true,
	"askpass": true}

// namesProgram reports an option or key name whose words say it holds a
// program. Negations (--no-pager) hold none.
func namesProgram(name string) bool {
	name = strings.TrimLeft(name, "-")
	if strings.HasPrefix(name, "no-") || strings.HasPrefix(name, "no_") {
		return false
	}
	for _, w := range nameWords(name) {
		if programWords[w] {
			return true
		}
	}
	return false
}

// nameWords splits an option or key name into lower-case words at
// punctuation and camelCase: ProxyCommand -> proxy, command.
func nameWords(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r)
	}
	flush()
	return out
}

// runOptionsWhy judges the values of in's options that name a program to
// run. A dangerous value is reported through c.found (the nested command's
// own finding); an unresolvable value of a declared option is a reason.
func (c *cmdChecker) runOptionsWhy(in *guardCall) string {
	fam := runOptIndex()[in.name]
	if fam == nil {
		fam = &optFamily{}
	}
	return c.familyOptionsWhy(fam, in.args, in)
}

// familyOptionsWhy judges the options in args that run programs, as fam
// declares them and by the generic rule.
func (c *cmdChecker) familyOptionsWhy(fam *optFamily, args []shArg, in *guardCall) string {
	for i := 0; i < len(args) && c.found == nil; i++ {
		a := args[i]
		if a.ok && a.val == "--" {
			return "" // operands follow
		}
		if !a.ok {
			continue
		}
		name, val, last := fam.readOption(args, i)
		i = last
		if val == nil {
			continue
		}
		kind, strict := fam.optionKind(name), true
		if kind == 0 {
			if !strings.HasPrefix(name, "--") || !namesProgram(name) {
				continue
			}
			// Not declared: judge only what reads as a command line.
			kind, strict = optShell, false
		}
		if why := c.optionValueWhy(*val, kind, strict, argAnchor(a, in)); why != "" {
			return why
		}
	}
	return ""
}

// readOption reads the option at args[i]: its name, its value (nil when
// none) and the index of the last argument it used.
func (fam *optFamily) readOption(args []shArg, i int) (string, *shArg, int) {
	a := args[i]
	v := a.val
	switch {
	case strings.HasPrefix(v, "--"):
		name, after, eq := strings.Cut(v, "=")
		if eq {
			return name, &shArg{val: after, ok: true, word: a.word}, i
		}
		if fam.separateValue(name) && i+1 < len(args) && !strings.HasPrefix(args[i+1].val, "-") {
			return name, &args[i+1], i + 1
		}
		return name, nil, i
	case strings.HasPrefix(v, "+") && fam.optionKind("+") != 0:
		return "+", &shArg{val: v[1:], ok: true, word: a.word}, i
	case strings.HasPrefix(v, "-") && len(v) > 1:
		return fam.shortOption(args, i)
	}
	return "", nil, i
}

// shortOption reads a short option at args[i] of fam: a declared option
// spelled whole (-TT, -o), or a letter in a cluster (-avze CMD, -oKEY=V).
// It returns the option name, its value (nil when none) and the index of
// the last argument used.
func (fam *optFamily) shortOption(args []shArg, i int) (string, *shArg, int) {
	v := args[i].val
	next := func() (*shArg, int) {
		if i+1 < len(args) {
			return &args[i+1], i + 1
		}
		return nil, i
	}
	if o := fam.option(v); o != nil {
		if o.attached {
			return v, nil, i
		}
		val, j := next()
		return v, val, j
	}
	for j := 1; j < len(v); j++ {
		name := "-" + v[j:j+1]
		kind := fam.optionKind(name)
		takes := strings.IndexByte(fam.shortVal, v[j]) >= 0
		if kind == 0 && !takes {
			continue
		}
		var val *shArg
		k := i
		if rest := v[j+1:]; rest != "" {
			val = &shArg{val: rest, ok: true, word: args[i].word}
		} else if o := fam.option(name); o == nil || !o.attached {
			val, k = next()
		}
		if kind == 0 {
			return "", nil, k // a value-taking option that runs nothing
		}
		return name, val, k
	}
	return "", nil, i
}

// optionValueWhy judges one option value of kind. strict: the option is
// known to run its value, so a value that cannot be resolved or parsed
// counts as dangerous; otherwise only what parses as a command is judged.
func (c *cmdChecker) optionValueWhy(val shArg, kind optKind, strict bool, anchor syntax.Node) string {
	if !val.ok {
		if strict {
			return "makes a tool run a command it cannot resolve"
		}
		return ""
	}
	script := strings.TrimSpace(val.val)
	switch kind {
	case optSettings:
		// KEY=VALUE, or ssh's "KEY VALUE".
		i := strings.IndexAny(script, "= \t")
		if i < 0 {
			return ""
		}
		k := script[:i]
		if w := nameWords(k); !namesProgram(k) && (len(w) == 0 || w[len(w)-1] != "ssh") {
			return ""
		}
		script = strings.TrimSpace(script[i+1:])
	case optExecAction:
		// --checkpoint-action=exec=CMD (also exec=CMD among other actions).
		_, after, ok := strings.Cut(script, "exec=")
		if !ok {
			return ""
		}
		script = after
	case optEscape:
		sh, ok := shellEscape(script)
		if !ok {
			return ""
		}
		script = sh
	}
	if script == "" {
		return ""
	}
	if !strict && !parsesAsShell(script) {
		return ""
	}
	c.nested(script, anchor, false)
	return ""
}

// shellEscape finds the shell command in an editor-style command (vim -c,
// less +, psql \!, sqlite3 .shell): what follows the tool's escape.
func shellEscape(cmd string) (string, bool) {
	cmd = strings.TrimLeft(strings.TrimSpace(cmd), ":")
	for _, pre := range []string{"!", `\!`, ".shell ", ".system ", "system ", "shell "} {
		if rest, ok := strings.CutPrefix(cmd, pre); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// sqlEscapesWhy judges the shell escapes of database clients in SQL given
// on their command line (psql -c '\! cmd', sqlite3 db '.shell cmd').
func (c *cmdChecker) sqlEscapesWhy(text string, anchor syntax.Node) {
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == ';' }) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, `\!`) && !strings.HasPrefix(line, ".shell") && !strings.HasPrefix(line, ".system") &&
			!strings.HasPrefix(strings.ToLower(line), "system ") {
			continue
		}
		if sh, ok := shellEscape(line); ok {
			c.nested(sh, anchor, false)
		}
		if c.found != nil {
			return
		}
	}
}

// parsesAsShell reports whether s is a shell command line.
func parsesAsShell(s string) bool {
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	return err == nil
}
