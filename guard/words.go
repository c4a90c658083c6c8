package guard

import (
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/aci-dev/aci/tools/secrets"
)

// shArg is one expanded shell field. Words the guard cannot expand without
// running something (command substitution, unknown variables) are kept as
// one field with ok=false and their source text as val.
type shArg struct {
	val    string
	ok     bool
	glob   bool // an unquoted *, ? or [ the shell would expand
	secret bool // references a variable that looks like a secret
	word   *syntax.Word
	proc   *syntax.ProcSubst // the word is exactly <(...) or >(...)
}

func litArg(s string) shArg { return shArg{val: s, ok: true} }

// maxFields bounds brace expansion ({1..99999999}) so judging stays cheap.
const guardMaxFields = 64

// words expands ws as the shell would, without running anything.
func (c *cmdChecker) words(ws []*syntax.Word) []shArg {
	out := make([]shArg, 0, len(ws))
	for _, w := range ws {
		out = append(out, c.word(w)...)
	}
	return out
}

func (c *cmdChecker) word(w *syntax.Word) []shArg {
	if w == nil || len(w.Parts) == 0 {
		return nil
	}
	base := shArg{word: w, secret: c.refsSecret(w.Parts)}
	if len(w.Parts) == 1 {
		if ps, ok := w.Parts[0].(*syntax.ProcSubst); ok {
			base.proc = ps
			base.val = c.text(w)
			return []shArg{base}
		}
	}
	if !c.resolvable(w.Parts) || braceHeavy(w.Parts) {
		base.val = c.text(w)
		return []shArg{base}
	}
	base.glob = c.isGlob(w.Parts)
	base.ok = true
	var out []shArg
	for f, err := range expand.FieldsSeq(c.expandCfg(), w) {
		if err != nil || len(out) >= guardMaxFields {
			base.ok, base.val = false, c.text(w)
			return []shArg{base}
		}
		a := base
		a.val = f
		c.noteMachine(f)
		out = append(out, a)
	}
	return out
}

// literal expands w to one string, or reports that it cannot.
func (c *cmdChecker) literal(w *syntax.Word) (string, bool) {
	as := c.word(w)
	if len(as) == 0 {
		return "", w != nil
	}
	vals := make([]string, 0, len(as))
	for _, a := range as {
		if !a.ok {
			return a.val, false
		}
		vals = append(vals, a.val)
	}
	return strings.Join(vals, " "), true
}

func (c *cmdChecker) expandCfg() *expand.Config {
	return &expand.Config{Env: expand.FuncEnviron(func(name string) string {
		v, _ := c.lookup(name)
		return v
	})}
}

// lookup resolves the variables the guard knows: HOME, PWD, plain literal
// assignments made earlier in the same command, and the harmless specials.
func (c *cmdChecker) lookup(name string) (string, bool) {
	switch name {
	case "HOME":
		return c.env.homeLex, true
	case "PWD":
		return c.cwd, c.cwd != ""
	case "TMPDIR":
		return c.env.tmp, true
	case "$", "!", "BASHPID", "RANDOM", "SRANDOM":
		return "12345", true
	case "?", "#":
		return "0", true
	}
	if user, ok := strings.CutPrefix(name, "HOME "); ok { // ~user
		if user == "root" {
			return "/root", true
		}
		return "/home/" + user, true
	}
	v, ok := c.vars[name]
	return v, ok
}

// braceHeavy reports words with so many braces that brace expansion would
// be slow; such words are not expanded.
func braceHeavy(parts []syntax.WordPart) bool {
	n := 0
	for _, p := range parts {
		if l, ok := p.(*syntax.Lit); ok {
			n += strings.Count(l.Value, "{")
		}
	}
	return n > 32
}

// resolvable reports whether parts expand without running anything and
// without unknown variables.
func (c *cmdChecker) resolvable(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if !c.resolvable(p.Parts) {
				return false
			}
		case *syntax.ParamExp:
			if !simpleParamExp(p) {
				return false
			}
			if _, ok := c.lookup(p.Param.Value); !ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func simpleParamExp(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil && !p.Excl && !p.Length && !p.Width && !p.IsSet &&
		p.Split == syntax.OptUnset && p.GlobSubst == syntax.OptUnset && p.RcExpand == syntax.OptUnset &&
		p.NestedParam == nil && p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil &&
		p.Repl == nil && p.Names == 0 && p.Exp == nil
}

// isGlob reports an unquoted, unescaped glob character, including one that
// arrives through an unquoted variable.
func (c *cmdChecker) isGlob(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			for i := 0; i < len(p.Value); i++ {
				switch p.Value[i] {
				case '\\':
					i++
				case '*', '?', '[':
					return true
				}
			}
		case *syntax.ExtGlob:
			return true
		case *syntax.ParamExp:
			if p.Param != nil {
				if v, ok := c.lookup(p.Param.Value); ok && strings.ContainsAny(v, "*?[") {
					return true
				}
			}
		}
	}
	return false
}

// refsSecret reports a reference to a secret-looking variable whose value
// would be printed or sent; ${#KEY} (its length) is harmless.
func (c *cmdChecker) refsSecret(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.DblQuoted:
			if c.refsSecret(p.Parts) {
				return true
			}
		case *syntax.ParamExp:
			if p.Param != nil && !p.Length && secrets.IsCredentialVar(p.Param.Value) &&
				!strings.HasSuffix(p.Param.Value, "_SOCK") {
				return true
			}
		}
	}
	return false
}

// text is the source of n, or "" when n has no usable position.
func (c *cmdChecker) text(n syntax.Node) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	if n == nil {
		return ""
	}
	if w, ok := n.(*syntax.Word); ok && (w == nil || len(w.Parts) == 0) {
		return ""
	}
	start, end := n.Pos().Offset(), n.End().Offset()
	if start > end || end > uint(len(c.src)) {
		return ""
	}
	return c.src[start:end]
}

// hdocText is a here-document body as the shell feeds it, with expansions
// left as written.
func (c *cmdChecker) hdocText(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(l.Value)
		} else {
			b.WriteString(c.text(p))
		}
	}
	return b.String()
}

// hiddenCharWhy reports characters that can hide what runs from a reader: a
// carriage return rewinds the terminal line, bidi controls reorder text and
// zero-width characters are invisible.
func hiddenCharWhy(s string) string {
	if !utf8.ValidString(s) {
		return "contains invalid UTF-8"
	}
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r == '\r':
			return "contains a carriage return that can hide what runs"
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return "contains a control character"
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			return "contains a bidirectional-text control that can hide what runs"
		case r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0xfeff, r == 0x180e,
			r == 0x00ad, r == 0x034f, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0,
			r >= 0xe0000 && r <= 0xe007f, r >= 0xfff9 && r <= 0xfffb:
			return "contains an invisible character"
		}
	}
	return ""
}

// shortReason keeps a reason readable when the part is long.
func shortReason(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= 80 {
		return s
	}
	r := []rune(s)
	return string(r[:77]) + "..."
}
