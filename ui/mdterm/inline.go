package mdterm

// CommonMark's inlines, as much as a terminal shows: backslash escapes,
// entities, code spans, emphasis (the delimiter-run rules), inline links
// and images, autolinks, raw HTML kept as text, and soft and hard line
// breaks.

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

type inlineKind int

const (
	iText inlineKind = iota
	iCode
	iEmph
	iLink
	iImage
	iAutoLink
	iSoftBreak
	iHardBreak
)

type inline struct {
	kind     inlineKind
	text     string    // text, code and autolink
	level    int       // emphasis: 1 (em) or 2 (strong)
	dest     string    // link and image
	children []*inline // emphasis, link text, image description
}

// token is an inline or, before emphasis is resolved, a run of * or _.
type token struct {
	*inline
	delim     byte // '*' or '_'; 0 for an inline
	n, orig   int  // characters left in the run, and at first
	open, cls bool // the run may open or close emphasis
}

// parseInlines reads the inlines of a paragraph's or heading's text;
// refs are the document's link reference definitions.
func parseInlines(s string, refs map[string]string) []*inline {
	var toks []token
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			toks = append(toks, token{inline: &inline{kind: iText, text: text.String()}})
			text.Reset()
		}
	}
	push := func(in *inline) {
		flush()
		toks = append(toks, token{inline: in})
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			push(&inline{kind: iHardBreak})
			i += 2
			continue
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			text.WriteByte(s[i+1])
			i += 2
			continue
		case c == '\n':
			hard := strings.HasSuffix(text.String(), "  ")
			t := strings.TrimRight(text.String(), " ")
			text.Reset()
			text.WriteString(t)
			if hard {
				push(&inline{kind: iHardBreak})
			} else {
				push(&inline{kind: iSoftBreak})
			}
			i++
			for i < len(s) && s[i] == ' ' {
				i++
			}
			continue
		case c == '`':
			if code, end, ok := codeSpan(s, i); ok {
				push(&inline{kind: iCode, text: code})
				i = end
				continue
			}
			n := runLen(s, i)
			text.WriteString(s[i : i+n])
			i += n
			continue
		case c == '&':
			if r, n := entity(s[i:]); n > 0 {
				text.WriteString(r)
				i += n
				continue
			}
		case c == '<':
			if url, n := autolink(s[i:]); n > 0 {
				push(&inline{kind: iAutoLink, text: url})
				i += n
				continue
			}
			if n := rawHTML(s[i:]); n > 0 {
				text.WriteString(s[i : i+n])
				i += n
				continue
			}
		case c == '[' || (c == '!' && i+1 < len(s) && s[i+1] == '['):
			if in, n := link(s, i, refs); n > 0 {
				push(in)
				i += n
				continue
			}
		case c == '*' || c == '_':
			n := runLen(s, i)
			before, _ := utf8.DecodeLastRuneInString(s[:i])
			after, _ := utf8.DecodeRuneInString(s[i+n:])
			if i == 0 {
				before = ' '
			}
			if i+n == len(s) {
				after = ' '
			}
			left := !unicode.IsSpace(after) && (!isPunct(after) || unicode.IsSpace(before) || isPunct(before))
			right := !unicode.IsSpace(before) && (!isPunct(before) || unicode.IsSpace(after) || isPunct(after))
			t := token{inline: &inline{kind: iText, text: s[i : i+n]}, delim: c, n: n, orig: n, open: left, cls: right}
			if c == '_' {
				t.open = left && (!right || isPunct(before))
				t.cls = right && (!left || isPunct(after))
			}
			flush()
			toks = append(toks, t)
			i += n
			continue
		}
		text.WriteByte(c)
		i++
	}
	flush()
	return emphasis(toks)
}

// emphasis pairs the runs of * and _ (CommonMark's process emphasis) and
// returns the inlines, unpaired runs as text.
func emphasis(toks []token) []*inline {
	for c := 0; c < len(toks); c++ {
		cl := &toks[c]
		if cl.delim == 0 || !cl.cls || cl.n == 0 {
			continue
		}
		o := c - 1
		for ; o >= 0; o-- {
			op := &toks[o]
			if op.delim != cl.delim || !op.open || op.n == 0 {
				continue
			}
			if (op.cls || cl.open) && (op.orig+cl.orig)%3 == 0 && (op.orig%3 != 0 || cl.orig%3 != 0) {
				continue
			}
			break
		}
		if o < 0 {
			continue
		}
		op := &toks[o]
		use := 1
		if op.n >= 2 && cl.n >= 2 {
			use = 2
		}
		op.n -= use
		cl.n -= use
		em := &inline{kind: iEmph, level: use, children: emphasis(append([]token(nil), toks[o+1:c]...))}
		rest := append([]token{{inline: em}}, toks[c:]...)
		toks = append(toks[:o+1], rest...)
		c = o + 1 // the closer again: it may have characters left
	}
	var out []*inline
	for _, t := range toks {
		if t.delim != 0 {
			if t.n > 0 {
				out = append(out, &inline{kind: iText, text: strings.Repeat(string(t.delim), t.n)})
			}
			continue
		}
		out = append(out, t.inline)
	}
	return out
}

func runLen(s string, i int) int {
	n := 1
	for i+n < len(s) && s[i+n] == s[i] {
		n++
	}
	return n
}

// codeSpan reads the code span whose backticks start at i: its content
// and the index after it.
func codeSpan(s string, i int) (string, int, bool) {
	n := runLen(s, i)
	for j := i + n; j < len(s); {
		k := strings.IndexByte(s[j:], '`')
		if k < 0 {
			break
		}
		j += k
		m := runLen(s, j)
		if m == n {
			code := strings.ReplaceAll(s[i+n:j], "\n", " ")
			if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
				code = code[1 : len(code)-1]
			}
			return code, j + m, true
		}
		j += m
	}
	return "", 0, false
}

// entity reads &name; &#123; or &#x1F; at the start of s: the text it
// stands for and its length; 0 when it is none.
func entity(s string) (string, int) {
	end := strings.IndexByte(s, ';')
	if end < 2 || end > 33 {
		return "", 0
	}
	body := s[1:end]
	if body[0] == '#' {
		digits, hex := body[1:], false
		if digits != "" && (digits[0] == 'x' || digits[0] == 'X') {
			digits, hex = digits[1:], true
		}
		if digits == "" || len(digits) > 7 {
			return "", 0
		}
		for i := 0; i < len(digits); i++ {
			c := digits[i] | 0x20
			if !('0' <= digits[i] && digits[i] <= '9') && !(hex && 'a' <= c && c <= 'f') {
				return "", 0
			}
		}
	} else {
		for i := 0; i < len(body); i++ {
			if !isAlnum(body[i]) {
				return "", 0
			}
		}
	}
	r := html.UnescapeString(s[:end+1])
	if r == s[:end+1] {
		return "", 0
	}
	return r, end + 1
}

// autolink reads <scheme:…> or <user@host> at the start of s.
func autolink(s string) (string, int) {
	end := strings.IndexByte(s, '>')
	if end < 0 {
		return "", 0
	}
	body := s[1:end]
	if body == "" || strings.ContainsAny(body, " \t\n<") {
		return "", 0
	}
	if colon := strings.IndexByte(body, ':'); colon >= 2 && colon <= 32 && isLetter(body[0]) {
		for i := 1; i < colon; i++ {
			if c := body[i]; !isAlnum(c) && c != '+' && c != '.' && c != '-' {
				return "", 0
			}
		}
		return body, end + 1
	}
	if at := strings.IndexByte(body, '@'); at > 0 && at < len(body)-1 && !strings.ContainsAny(body, `\`) {
		return body, end + 1
	}
	return "", 0
}

// rawHTML reads a tag, closing tag, comment or declaration at the start of
// s: its length, 0 when it is none.
func rawHTML(s string) int {
	if len(s) < 3 {
		return 0
	}
	t := s[1:]
	if t[0] == '/' {
		t = t[1:]
	}
	if t == "" || !(isLetter(t[0]) || s[1] == '!' || s[1] == '?') {
		return 0
	}
	end := strings.IndexByte(s, '>')
	if end < 0 {
		return 0
	}
	return end + 1
}

// link reads a link [text](dest "title"), [text][ref], [ref][] or [ref],
// or an image ![alt](dest), starting at i: the inline and its length, 0
// when it is none.
func link(s string, i int, refs map[string]string) (*inline, int) {
	kind, open := iLink, i+1
	if s[i] == '!' {
		kind, open = iImage, i+2
	}
	// The matching ], past escapes and code spans.
	depth, j := 0, open
scan:
	for ; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '`':
			if _, end, ok := codeSpan(s, j); ok {
				j = end - 1
			}
		case '[':
			depth++
		case ']':
			if depth == 0 {
				break scan
			}
			depth--
		}
	}
	if j >= len(s) {
		return nil, 0
	}
	if j+1 < len(s) && s[j+1] == '(' {
		if dest, end, ok := destination(s, j+2); ok {
			return &inline{kind: kind, dest: dest, children: parseInlines(s[open:j], refs)}, end - i
		}
	}
	label, end := s[open:j], j+1
	if j+1 < len(s) && s[j+1] == '[' {
		if k := strings.IndexByte(s[j+2:], ']'); k >= 0 {
			if k > 0 {
				label = s[j+2 : j+2+k]
			}
			end = j + 3 + k
		}
	}
	dest, ok := refs[refLabel(label)]
	if !ok {
		return nil, 0
	}
	return &inline{kind: kind, dest: dest, children: parseInlines(s[open:j], refs)}, end - i
}

// refLabel is a reference's label as definitions and links match it.
func refLabel(l string) string { return strings.ToLower(strings.Join(strings.Fields(l), " ")) }

// linkRefs reads the link reference definitions ([label]: dest "title")
// at the start of the paragraphs under bs. Their lines still show, as
// written.
func linkRefs(bs []*block, refs map[string]string) map[string]string {
	for _, b := range bs {
		refs = linkRefs(b.children, refs)
		if b.kind != bPara {
			continue
		}
		for _, l := range b.lines {
			if !strings.HasPrefix(l, "[") {
				break
			}
			k := strings.Index(l, "]:")
			if k < 2 {
				break
			}
			f := strings.Fields(l[k+2:])
			if len(f) == 0 {
				break
			}
			if refs == nil {
				refs = map[string]string{}
			}
			label := refLabel(l[1:k])
			if _, seen := refs[label]; !seen { // the first definition wins
				refs[label] = unescape(strings.TrimSuffix(strings.TrimPrefix(f[0], "<"), ">"))
			}
			b.defs++
		}
	}
	return refs
}

// destination reads a link's destination and title from s[k:] up to its
// closing parenthesis: the destination and the index after the ")".
func destination(s string, k int) (string, int, bool) {
	skip := func() {
		for k < len(s) && (s[k] == ' ' || s[k] == '\n') {
			k++
		}
	}
	skip()
	var dest string
	if k < len(s) && s[k] == '<' {
		end := strings.IndexAny(s[k:], ">\n")
		if end < 0 || s[k+end] != '>' {
			return "", 0, false
		}
		dest, k = s[k+1:k+end], k+end+1
	} else {
		start, depth := k, 0
		for ; k < len(s) && s[k] > ' '; k++ {
			if s[k] == '\\' && k+1 < len(s) {
				k++
			} else if s[k] == '(' {
				depth++
			} else if s[k] == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
		}
		dest = s[start:k]
	}
	skip()
	if k < len(s) && strings.IndexByte(`"'(`, s[k]) >= 0 {
		closer := s[k]
		if closer == '(' {
			closer = ')'
		}
		end := strings.IndexByte(s[k+1:], closer)
		if end < 0 {
			return "", 0, false
		}
		k += end + 2
		skip()
	}
	if k >= len(s) || s[k] != ')' {
		return "", 0, false
	}
	return unescape(dest), k + 1, true
}

// unescape resolves backslash escapes and entities.
func unescape(s string) string {
	if !strings.ContainsAny(s, `\&`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			b.WriteByte(s[i+1])
			i++
		case s[i] == '&':
			if r, n := entity(s[i:]); n > 0 {
				b.WriteString(r)
				i += n - 1
				continue
			}
			b.WriteByte('&')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIPunct(byte(r))
	}
	return r != utf8.RuneError && (unicode.IsPunct(r) || unicode.IsSymbol(r))
}
