package guard

import (
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// ReadOnly reports whether command is known to change nothing: every
// simple command in it is a known reader (ls, cat, grep, git status …)
// used without its writing options, and nothing is redirected into a
// file. Unknown means no: the ask and plan modes ask about (or, where
// commands cannot be contained, refuse) everything else.
func ReadOnly(command string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return false
	}
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		if !ok {
			return false
		}
		switch x := n.(type) {
		case *syntax.Redirect:
			ok = readOnlyRedirect(x)
		case *syntax.CallExpr:
			ok = readOnlyCall(x)
		case *syntax.FuncDecl, *syntax.CoprocClause, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ArithmCmd:
			ok = false // a function runs later; arithmetic can assign
		case *syntax.DeclClause:
			ok = false // declare/export/readonly change the shell
		}
		return ok
	})
	return ok
}

// readOnlyRedirect allows input, duplicating descriptors and /dev/null.
func readOnlyRedirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrIn, syntax.DplIn, syntax.DplOut, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	}
	return r.Word != nil && r.Word.Lit() == "/dev/null"
}

// readers are commands that only read, whatever their arguments, except
// the options named in writingOpts.
var readers = map[string]bool{
	"ls": true, "cat": true, "head": true, "tail": true, "wc": true, "grep": true, "egrep": true, "fgrep": true,
	"rg": true, "ag": true, "pwd": true, "echo": true, "printf": true, "true": true, "false": true, "test": true,
	"[": true, "stat": true, "file": true, "du": true, "df": true, "which": true, "type": true, "whoami": true,
	"id": true, "uname": true, "date": true, "env": false, "printenv": true, "basename": true, "dirname": true,
	"realpath": true, "readlink": true, "tree": true, "less": false, "diff": true, "cmp": true, "comm": true,
	"cut": true, "tr": true, "uniq": true, "nl": true, "od": true, "hexdump": true, "xxd": true, "md5sum": true,
	"sha1sum": true, "sha256sum": true, "jq": true, "column": true, "seq": true, "sleep": true, "awk": false,
	"sort": true, "find": true, "sed": true, "fd": true, "tac": true, "rev": true, "strings": true,
	"cd": true, "ps": true, "uptime": true, "free": true, "nproc": true, "hostname": true, "locale": true,
}

// writingOpts are the options that make a reader write.
var writingOpts = map[string][]string{
	"find": {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"},
	"sort": {"-o", "--output"},
	"fd":   {"-x", "--exec", "-X", "--exec-batch"},
	"rg":   {"--pre"},
	"tree": {"-o"},
	"date": {"-s", "--set"},
	"xxd":  {"-r"},
}

// gitReaders are git's sub-commands that change nothing.
var gitReaders = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "blame": true, "grep": true, "ls-files": true,
	"rev-parse": true, "describe": true, "shortlog": true, "ls-tree": true, "cat-file": true, "reflog": false,
	"branch": true, "tag": true, "remote": true, "config": false, "help": true, "version": true,
}

func readOnlyCall(c *syntax.CallExpr) bool {
	if len(c.Assigns) > 0 {
		return false // X=… may set what a reader runs (PATH, GIT_EXTERNAL_DIFF)
	}
	if len(c.Args) == 0 {
		return true
	}
	name := c.Args[0].Lit()
	if name == "" {
		return false // a command named by an expansion
	}
	var args []string
	for _, a := range c.Args[1:] {
		// An argument that is not plain text may expand to anything,
		// which a reader still only reads: check what can be seen.
		args = append(args, wordText(a))
	}
	if name == "git" {
		return readOnlyGit(args)
	}
	if !readers[name] {
		return false
	}
	switch name {
	case "sed":
		return readOnlySed(args)
	case "uniq":
		return len(operands(args)) <= 1 // a second operand is its output file
	case "sort":
		for _, a := range args {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], "o") {
				return false // -o in a cluster (-rno out)
			}
		}
	}
	for _, a := range args {
		for _, o := range writingOpts[name] {
			if a == o || strings.HasPrefix(a, o) && (strings.HasPrefix(o, "--") || len(o) == 2) {
				return false
			}
		}
	}
	return true
}

// sedPrint is a sed script that only prints or deletes lines (1,20p;
// $d; /re/p), and sedSubst one substitution with no w or e flag.
var (
	sedPrint = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*([0-9$]*(,[0-9$]*)?|/[^/]*/)\s*[pdqn=]?\s*(;\s*([0-9$]*(,[0-9$]*)?|/[^/]*/)\s*[pdqn=]?\s*)*$`)
	})
	sedSubst = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([0-9$]*(,[0-9$]*)?)?s(.)(.*)$`) })
)

// readOnlySed allows sed without in-place editing whose script only
// prints or substitutes (to stdout): w writes a file, e runs a command.
func readOnlySed(args []string) bool {
	script := ""
	for _, a := range args {
		if a == "--in-place" || strings.HasPrefix(a, "--in-place=") || a == "-e" || a == "-f" || a == "--expression" || a == "--file" {
			return false
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") {
			if strings.ContainsAny(a[1:], "ief") {
				return false
			}
			continue
		}
		if strings.HasPrefix(a, "--") {
			continue
		}
		if script == "" {
			script = a
		}
	}
	if sedPrint().MatchString(script) {
		return true
	}
	m := sedSubst().FindStringSubmatch(script)
	if m == nil || m[3] == "\\" || m[3] == "\n" {
		return false
	}
	parts := strings.Split(m[4], m[3])
	if len(parts) != 3 {
		return false
	}
	return !strings.ContainsAny(parts[2], "wWe;") && !strings.Contains(parts[2], "\n")
}

// readOnlyGit allows git's reading sub-commands, with options before them
// that do not point git elsewhere (-C stays read-only; -c may set hooks).
func readOnlyGit(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C":
			i++
			continue
		case a == "--no-pager" || strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree="):
			continue
		case strings.HasPrefix(a, "-"):
			return false
		}
		if !gitReaders[a] {
			return false
		}
		rest := args[i+1:]
		switch a {
		case "branch", "tag", "remote":
			// Listing only: any argument but a listing option could create,
			// delete or rename.
			for _, r := range rest {
				if !strings.HasPrefix(r, "-") || strings.HasPrefix(r, "-d") || strings.HasPrefix(r, "-D") ||
					strings.HasPrefix(r, "-m") || strings.HasPrefix(r, "-M") || r == "--delete" || r == "--set-upstream-to" {
					if !(a == "remote" && (r == "-v" || r == "show" || r == "get-url")) {
						return false
					}
				}
			}
		case "diff", "log", "show", "grep":
			for _, r := range rest {
				// --ext-diff and --textconv run configured programs; grep's -O a pager.
				if r == "--output" || strings.HasPrefix(r, "--output=") || r == "--ext-diff" || r == "--textconv" ||
					a == "grep" && (strings.HasPrefix(r, "-O") || strings.HasPrefix(r, "--open-files-in-pager")) {
					return false
				}
			}
		}
		return true
	}
	return false
}

// wordText is a word's literal parts and quoted text, with expansions
// left out.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				}
			}
		}
	}
	return b.String()
}

// operands are the arguments that are not options.
func operands(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}
