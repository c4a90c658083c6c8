package guard

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// stdinUse is what a command does with its standard input.
type stdinUse struct {
	kind stdinKind
	lang string // the interpreter, for stdinCode; "" for a shell
}

type stdinKind int

const (
	stdinData stdinKind = iota // ordinary data
	stdinCode                  // runs it as a program
	stdinSQL                   // runs it as SQL
	stdinNet                   // sends it over the network
)

var shellStdin = stdinUse{kind: stdinCode}

func (c *cmdChecker) stdinUse(in *guardCall) stdinUse {
	if in == nil || in.name == "" {
		return stdinUse{}
	}
	if f := specOf(in.name).stdin; f != nil {
		return f(c, in)
	}
	return stdinUse{}
}

func stdinShell(_ *cmdChecker, in *guardCall) stdinUse {
	if parseShellArgs(in.args).mode == invStdin {
		return shellStdin
	}
	return stdinUse{}
}

func stdinSource(_ *cmdChecker, in *guardCall) stdinUse {
	if ops := cmdOperands(in.args); len(ops) > 0 && (ops[0].val == "/dev/stdin" || ops[0].val == "-") {
		return shellStdin
	}
	return stdinUse{}
}

func stdinInterp(_ *cmdChecker, in *guardCall) stdinUse {
	if parseInterpArgs(in.name, in.args).mode == invStdin {
		return stdinUse{kind: stdinCode, lang: in.name}
	}
	return stdinUse{}
}

func stdinSQLClient(_ *cmdChecker, in *guardCall) stdinUse {
	if _, has := sqlInline(in); !has {
		return stdinUse{kind: stdinSQL}
	}
	return stdinUse{}
}

func stdinNetwork(_ *cmdChecker, in *guardCall) stdinUse {
	return stdinUse{kind: stdinNet, lang: in.name}
}

func stdinOpenssl(_ *cmdChecker, in *guardCall) stdinUse {
	if hasLitArg(in.args, "s_client") {
		return stdinUse{kind: stdinNet, lang: in.name}
	}
	return stdinUse{}
}

func hasLitArg(args []shArg, vals ...string) bool {
	for _, a := range args {
		for _, v := range vals {
			if a.ok && a.val == v {
				return true
			}
		}
	}
	return false
}

// redirs checks where a statement writes and reads, and what it feeds a
// shell or database through here-documents.
func (c *cmdChecker) redirs(s *syntax.Stmt, in *guardCall) {
	for _, r := range s.Redirs {
		if c.found != nil {
			return
		}
		c.substsWord(r.Word)
		c.substsWord(r.Hdoc)
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
			syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
			for _, a := range c.word(r.Word) {
				if why := c.writeWhy(a); why != "" {
					c.flag(r, why)
				}
				c.recordWrite(s, a, r.Op == syntax.AppOut || r.Op == syntax.AppAll)
			}
		case syntax.DplOut, syntax.DplIn:
			v, ok := c.literal(r.Word)
			if ok && (v == "-" || strings.Trim(v, "0123456789") == "") {
				continue
			}
			if r.Op == syntax.DplOut {
				for _, a := range c.word(r.Word) {
					if why := c.writeWhy(a); why != "" {
						c.flag(r, why)
					}
				}
			}
		case syntax.RdrIn:
			for _, a := range c.word(r.Word) {
				if why := c.secretArg(a, false); why != "" {
					c.flag(r, why)
				}
			}
		}
	}
	if c.found == nil && in != nil {
		c.stdinRedirs(s, in)
		c.recordHdocWrites(s, in)
	}
}

// recordWrite remembers what a statement writes to a file, so that running
// that file later in the same command is judged by its content.
func (c *cmdChecker) recordWrite(s *syntax.Stmt, a shArg, appendTo bool) {
	p := c.abs(a.val)
	if !a.ok || p == "" {
		return
	}
	text, known, ok := c.literalOutput(s)
	if ce, isCall := s.Cmd.(*syntax.CallExpr); isCall && len(ce.Args) > 0 && !ok {
		switch c.effective(ce).name {
		case "curl", "wget", "fetch", "http", "xh", "aria2c":
			c.downloads[p] = true
			return
		}
	}
	if !ok || !known {
		text = unknownScript
	}
	if base := filepath.Base(p); strings.HasPrefix(base, ".env") || strings.HasSuffix(base, ".env") {
		if reSafetySwitch.MatchString(text) || text == unknownScript && c.decodes(s) {
			c.flag(s, "writes aci's safety switches into "+base)
			return
		}
	}
	if prev, had := c.shared.written[p]; had && appendTo && prev != unknownScript && text != unknownScript {
		text = prev + text
	}
	c.shared.written[p] = text
}

// runsWritten judges running a file this command wrote earlier.
func (c *cmdChecker) runsWritten(p string, anchor syntax.Node, use stdinUse) bool {
	text, ok := c.shared.written[p]
	if !ok {
		return false
	}
	if text == unknownScript {
		c.flag(anchor, "runs a script this command generated")
		return true
	}
	c.judgeText(text, true, anchor, use)
	return true
}

// stdinRedirs judges what a here-document, here-string or < file feeds a
// command that runs or sends its input.
func (c *cmdChecker) stdinRedirs(s *syntax.Stmt, in *guardCall) {
	use := c.stdinUse(in)
	if use.kind == stdinData {
		return
	}
	for _, r := range s.Redirs {
		if c.found != nil {
			return
		}
		var text string
		known := true
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			text = c.hdocText(r.Hdoc)
			known = !hasCmdSubst(r.Hdoc)
		case syntax.WordHdoc:
			text, known = c.literal(r.Word)
		case syntax.RdrIn:
			as := c.word(r.Word)
			if len(as) != 1 {
				continue
			}
			a := as[0]
			switch {
			case a.proc != nil:
				c.feeder(lastStmtOf(a.proc.Stmts), r, use)
			case use.kind == stdinNet && a.val != "/dev/null":
				c.flag(s, "sends a local file to the network")
			case !a.ok && use.kind == stdinCode:
				c.flag(s, "runs a script it cannot resolve")
			case a.ok && c.downloads[c.abs(a.val)] && use.kind == stdinCode:
				c.flag(s, "runs downloaded code")
			}
			continue
		default:
			continue
		}
		c.judgeText(text, known, r, use)
	}
}

// judgeText judges literal text given to a shell or a database.
func (c *cmdChecker) judgeText(text string, known bool, anchor syntax.Node, use stdinUse) {
	switch use.kind {
	case stdinCode:
		if !known {
			c.flag(anchor, "runs a script built from substitutions it cannot resolve")
			return
		}
		if use.lang != "" {
			if why := c.codeWhy(use.lang, text, anchor, 0); why != "" {
				c.flag(anchor, why)
			}
			return
		}
		c.nested(text, anchor, false)
	case stdinSQL:
		if why := sqlWhy(text); why != "" {
			c.flag(anchor, why)
		}
	case stdinNet:
		if !known && use.lang == "ssh" {
			c.flag(anchor, "runs a remote script built from substitutions it cannot resolve")
			return
		}
		c.netStdinText(use.lang, text, anchor)
	}
}

func hasCmdSubst(w *syntax.Word) bool {
	found := false
	if w == nil {
		return false
	}
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			found = true
		}
		return !found
	})
	return found
}

func lastStmtOf(list []*syntax.Stmt) *syntax.Stmt {
	if len(list) == 0 {
		return nil
	}
	return list[len(list)-1]
}

// feed judges what flows from prev into next in a pipeline.
func (c *cmdChecker) feed(prev, next *syntax.Stmt, anchor syntax.Node) {
	ce, ok := next.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return
	}
	in := c.effective(ce)
	switch use := c.stdinUse(in); use.kind {
	case stdinCode, stdinSQL:
		c.feeder(prev, anchor, use)
	case stdinNet:
		c.flag(anchor, "sends local data to the network")
	default:
		c.envFilter(prev, in, anchor)
	}
}

// feeder judges the command whose output a shell (or database) runs.
// Literal text is checked as a script; a local file is trusted like
// "bash script.sh"; anything else (a download, a decoder) is dangerous.
func (c *cmdChecker) feeder(prev *syntax.Stmt, anchor syntax.Node, use stdinUse) {
	if prev == nil {
		c.flag(anchor, "runs code it cannot see")
		return
	}
	if text, known, ok := c.literalOutput(prev); ok {
		c.judgeText(text, known, anchor, use)
		return
	}
	ce, ok := prev.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		if use.kind == stdinCode {
			c.flag(anchor, "runs generated code")
		}
		return
	}
	in := c.effective(ce)
	if in.name == "cat" && !in.extra {
		local := true
		for _, a := range cmdOperands(in.args) {
			p := c.abs(a.val)
			local = local && a.ok && !a.glob && p != "" && !c.downloads[p]
			if local && c.runsWritten(p, anchor, use) {
				return
			}
		}
		if local {
			return
		}
	}
	if use.kind != stdinCode {
		return
	}
	switch in.name {
	case "curl", "wget", "fetch", "http", "https", "xh", "aria2c", "lwp-request", "GET":
		c.flag(anchor, "runs downloaded code")
	case "base64", "base32", "xxd", "openssl", "gzip", "gunzip", "zcat", "xz", "bzip2", "rev", "tr", "uudecode", "basenc":
		c.flag(anchor, "runs decoded or obfuscated code")
	default:
		c.flag(anchor, "runs generated code")
	}
}

// literalOutput is the text an echo, printf or cat <<EOF prints, when it
// can be known; known=false when it depends on a substitution.
func (c *cmdChecker) literalOutput(s *syntax.Stmt) (text string, known, ok bool) {
	ce, isCall := s.Cmd.(*syntax.CallExpr)
	if !isCall || len(ce.Args) == 0 {
		return "", false, false
	}
	in := c.effective(ce)
	switch in.name {
	case "echo", "printf":
		args := in.args
		if in.name == "echo" {
			for len(args) > 0 && args[0].ok && (args[0].val == "-n" || args[0].val == "-e" || args[0].val == "-E" || args[0].val == "-ne") {
				args = args[1:]
			}
		}
		vals := make([]string, len(args))
		for i, a := range args {
			if !a.ok {
				return "", false, true
			}
			vals[i] = a.val
		}
		if in.name == "printf" && len(vals) > 0 {
			if out, _, err := expand.Format(nil, vals[0], vals[1:]); err == nil {
				return out, true, true
			}
		}
		text := strings.Join(vals, " ")
		if strings.Contains(text, `\`) {
			// echo -e, and sh's echo, turn \x72\x6d into "rm".
			if out, _, err := expand.Format(nil, text, nil); err == nil {
				text = out
			}
		}
		return text, true, true
	case "cat":
		if len(cmdOperands(in.args)) > 0 {
			return "", false, false
		}
		for _, r := range s.Redirs {
			switch r.Op {
			case syntax.Hdoc, syntax.DashHdoc:
				return c.hdocText(r.Hdoc), !hasCmdSubst(r.Hdoc), true
			case syntax.WordHdoc:
				t, k := c.literal(r.Word)
				return t, k, true
			}
		}
	}
	return "", false, false
}

// envFilter flags "env | grep KEY": listing the environment filtered down to
// its secrets.
func (c *cmdChecker) envFilter(prev *syntax.Stmt, next *guardCall, anchor syntax.Node) {
	ce, ok := prev.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return
	}
	p := c.effective(ce)
	lists := p.name == "printenv" && len(p.args) == 0 || p.name == "env" && len(p.args) == 0 ||
		p.name == "set" || p.name == "export" || p.name == "declare" || p.name == "compgen"
	if !lists {
		return
	}
	switch next.name {
	case "grep", "egrep", "fgrep", "rg", "ag", "awk", "sed", "findstr", "sort", "head", "tail", "cat", "less", "tee":
	default:
		return
	}
	for _, a := range next.args {
		if a.ok && !strings.HasPrefix(a.val, "-") && credentialPattern(a.val) {
			c.flag(anchor, "prints secret environment variables")
			return
		}
	}
}

// decodes reports a statement whose output is decoded or generated text
// (base64 -d, xxd -r, openssl enc -d), which can spell anything.
func (c *cmdChecker) decodes(s *syntax.Stmt) bool {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return true
	}
	switch c.effective(ce).name {
	case "base64", "base32", "basenc", "xxd", "openssl", "uudecode", "rev", "tr", "gunzip", "zcat", "xz", "bzip2":
		return true
	}
	return false
}
