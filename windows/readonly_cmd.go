package windows

import (
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// readingCommands are the programs a read-only turn may run; each is
// refused with the arguments that would make it write (refuse).
var readingCommands = map[string]func(args []string) string{
	"cat": nil, "head": nil, "tail": nil, "wc": nil, "nl": nil, "cut": nil, "tr": nil, "ls": nil, "pwd": nil,
	"echo": nil, "printf": nil, "grep": nil, "egrep": nil, "fgrep": nil, "diff": nil, "stat": nil,
	"basename": nil, "dirname": nil, "realpath": nil, "true": nil, "false": nil, "test": nil, "[": nil,
	"jq": nil, "cd": nil, "which": nil, "du": nil, "column": nil, "comm": nil,
	"rg":   refuseFlags("--pre"),
	"tree": refuseFlags("-o"),
	"file": refuseFlags("-C", "--compile"),
	"sort": func(args []string) string {
		for _, a := range args {
			if strings.HasPrefix(a, "--output") || shortFlags(a, "o") {
				return "sort " + a
			}
		}
		return ""
	},
	"find": refuseFlags("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"),
	"uniq": func(args []string) string {
		if len(operands(args)) > 1 {
			return "uniq with an output file"
		}
		return ""
	},
	"sed": func(args []string) string {
		for _, a := range args {
			// -i edits in place, -f reads a script that may write.
			if strings.HasPrefix(a, "--in-place") || strings.HasPrefix(a, "--file") || shortFlags(a, "if") ||
				!strings.HasPrefix(a, "-") && sedWrites.MatchString(a) {
				return "sed " + a
			}
		}
		return ""
	},
	"git": readingGit,
}

// sedWrites finds sed's w (write a file) and e (run a command) commands
// and flags in a script: after an address, a separator or s///'s flags.
var sedWrites = regexp.MustCompile(`(^|[^A-Za-z]|/[gpiImMeEwW0-9]*)[wWeE](\s|$|;|})`)

// gitReading are git's sub-commands that only read.
var gitReading = map[string]bool{
	"diff": true, "log": true, "show": true, "status": true, "blame": true, "rev-parse": true, "ls-files": true,
	"merge-base": true, "describe": true, "shortlog": true, "grep": true, "cat-file": true, "ls-tree": true,
	"rev-list": true, "name-rev": true, "branch": true, "whatchanged": true, "diff-tree": true,
}

func readingGit(args []string) string {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch args[i] {
		case "--no-pager", "--no-optional-locks", "-P":
			i++
		case "-C":
			i += 2
		default:
			return "git " + args[i] // -c could set a pager or a diff program
		}
	}
	if i >= len(args) || !gitReading[args[i]] {
		if i < len(args) {
			return "git " + args[i]
		}
		return "git without a reading sub-command"
	}
	sub, rest := args[i], args[i+1:]
	for _, a := range rest {
		if strings.HasPrefix(a, "--output") || a == "--ext-diff" || a == "--textconv" || a == "-O" || strings.HasPrefix(a, "--open-files-in-pager") {
			return "git " + sub + " " + a
		}
	}
	if sub == "branch" {
		for _, a := range rest {
			switch a {
			case "-a", "-r", "-v", "-vv", "--all", "--remotes", "--list", "--show-current", "--no-color", "--verbose":
			default:
				return "git branch " + a
			}
		}
	}
	return ""
}

// shortFlags reports whether a is a cluster of short options (-ni) that
// holds one of letters.
func shortFlags(a, letters string) bool {
	return strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], letters)
}

func refuseFlags(flags ...string) func([]string) string {
	return func(args []string) string {
		for _, a := range args {
			for _, f := range flags {
				if a == f || strings.HasPrefix(a, f+"=") || len(f) == 2 && f[1] != '-' && strings.HasPrefix(a, f) {
					return a
				}
			}
		}
		return ""
	}
}

func operands(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

// readOnlyCommand says why command could change files ("" when it only
// reads): every program it runs must be a reading one with reading
// arguments, and no redirection may write anywhere but /dev/null.
func readOnlyCommand(command string) string {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return "only reading commands run, and this one does not parse"
	}
	var why string
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.Redirect:
			switch n.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut, syntax.RdrInOut:
				if n.Word == nil || n.Word.Lit() != "/dev/null" {
					why = "only reading commands run, and this one writes to a file (" + redirText(n) + ")"
				}
			}
		case *syntax.CallExpr:
			if len(n.Assigns) > 0 {
				// GIT_EXTERNAL_DIFF=… git diff runs a program of its choosing.
				why = "only reading commands run, and this one sets variables"
				return false
			}
			var words []string
			for _, w := range n.Args {
				lit := w.Lit()
				if lit == "" && len(w.Parts) > 0 {
					lit = unquoted(w)
				}
				words = append(words, lit)
			}
			check, ok := readingCommands[words[0]]
			switch {
			case !ok:
				why = fmt.Sprintf("only reading commands run (git diff/log/show/status, cat, grep, rg, ls, find, head, sed -n …), not %q", words[0])
			case check != nil:
				if bad := check(words[1:]); bad != "" {
					why = "only reading commands run, and " + bad + " may write"
				}
			}
		}
		return true
	})
	return why
}

// unquoted is a word made of quoted literals, as the program gets it; a
// word with an expansion is kept as typed (it is not a program name aci
// knows, so it is refused where it matters).
func unquoted(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "$…"
				}
				b.WriteString(lit.Value)
			}
		default:
			return "$…"
		}
	}
	return b.String()
}

func redirText(r *syntax.Redirect) string {
	if r.Word == nil {
		return r.Op.String()
	}
	return r.Op.String() + " " + unquoted(r.Word)
}
