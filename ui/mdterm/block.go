package mdterm

// The block structure of CommonMark, as much as a terminal shows:
// paragraphs, ATX and setext headings, thematic breaks, fenced and indented
// code, HTML blocks, block quotes and lists (with lazy continuation lines
// and tight or loose spacing). Link reference definitions are not read:
// such a line shows as prose. Written here rather than taken from goldmark,
// whose packages' initialisation (an entity table, a case-folding map,
// regular expressions) every run of aci paid for, Markdown or not.

import "strings"

type blockKind int

const (
	bPara blockKind = iota
	bHeading
	bRule
	bCode
	bHTML
	bQuote
	bList
	bItem
)

type block struct {
	kind     blockKind
	level    int      // heading: 1 to 6
	lines    []string // paragraph and heading: its text lines; code and HTML: as written
	children []*block // quote and item: their blocks; list: its items
	ordered  bool
	start    int  // ordered list: the first number
	marker   byte // list: the bullet, or '.' or ')' after a number
	tight    bool // list: no blank line between its items or their blocks
	blank    bool // a blank line came before this block
	defs     int  // paragraph: how many of its first lines define link references
}

// parseBlocks reads src's blocks.
func parseBlocks(src string) []*block {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n") // a last newline ends a line, it starts none
	for i, l := range lines {
		lines[i] = expandTabs(l)
	}
	return blocks(lines)
}

// expandTabs turns the tabs of a line's indentation into spaces, to tab
// stops of 4, so that indentation is counted in columns.
func expandTabs(l string) string {
	if !strings.Contains(l, "\t") {
		return l
	}
	var b strings.Builder
	col := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '\t':
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case ' ':
			b.WriteByte(' ')
			col++
		default:
			b.WriteString(l[i:])
			return b.String()
		}
	}
	return b.String()
}

func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

// blocks parses lines whose container marks are already taken off.
func blocks(lines []string) []*block {
	var out []*block
	var para *block
	blank := false
	add := func(b *block) {
		b.blank = blank
		blank = false
		out = append(out, b)
	}
	for i := 0; i < len(lines); {
		l := lines[i]
		if isBlank(l) {
			para = nil
			blank = len(out) > 0
			i++
			continue
		}
		ind := indent(l)
		if para != nil {
			if lvl := setext(l); lvl > 0 {
				para.kind, para.level = bHeading, lvl
				para = nil
				i++
				continue
			}
			if !interrupts(l) {
				para.lines = append(para.lines, strings.TrimLeft(l, " "))
				i++
				continue
			}
			para = nil
		}
		if ind >= 4 {
			j := i
			for j < len(lines) && (isBlank(lines[j]) || indent(lines[j]) >= 4) {
				j++
			}
			for j > i && isBlank(lines[j-1]) {
				j--
			}
			code := &block{kind: bCode}
			for _, c := range lines[i:j] {
				code.lines = append(code.lines, cutIndent(c, 4))
			}
			add(code)
			i = j
			continue
		}
		if ch, n, ok := fence(l); ok {
			code := &block{kind: bCode}
			j := i + 1
			for ; j < len(lines); j++ {
				if c, m, ok := fence(lines[j]); ok && c == ch && m >= n && strings.TrimSpace(strings.TrimLeft(lines[j], " "+string(ch))) == "" {
					j++
					break
				}
				code.lines = append(code.lines, cutIndent(lines[j], ind))
			}
			add(code)
			i = j
			continue
		}
		if lvl, text, ok := atx(l); ok {
			add(&block{kind: bHeading, level: lvl, lines: []string{text}})
			i++
			continue
		}
		if thematic(l) {
			add(&block{kind: bRule})
			i++
			continue
		}
		if quoteLine(l) {
			var inner []string
			j := i
			for ; j < len(lines); j++ {
				if quoteLine(lines[j]) {
					inner = append(inner, unquote(lines[j]))
					continue
				}
				// A lazy line goes on the quote's paragraph.
				if isBlank(lines[j]) || len(inner) == 0 || isBlank(inner[len(inner)-1]) || interrupts(lines[j]) {
					break
				}
				inner = append(inner, lazy(lines[j]))
			}
			add(&block{kind: bQuote, children: blocks(inner)})
			i = j
			continue
		}
		if m, ok := listMarker(l); ok {
			list, j := parseList(lines, i, m)
			add(list)
			i = j
			continue
		}
		if htmlStart(l) {
			j := i
			for j < len(lines) && !isBlank(lines[j]) {
				j++
			}
			add(&block{kind: bHTML, lines: lines[i:j]})
			i = j
			continue
		}
		para = &block{kind: bPara, lines: []string{strings.TrimLeft(l, " ")}}
		add(para)
		i++
	}
	return out
}

// lazy is a lazy continuation line as its container's blocks see it:
// always paragraph text, so an underline of = or - is escaped rather than
// made a setext heading's.
func lazy(l string) string {
	if setext(l) > 0 {
		return `\` + strings.TrimLeft(l, " ")
	}
	return l
}

// cutIndent takes up to n columns of spaces off the start of l.
func cutIndent(l string, n int) string {
	return l[min(indent(l), n):]
}

// interrupts says whether l starts a block that ends a paragraph.
func interrupts(l string) bool {
	if indent(l) >= 4 {
		return false
	}
	if _, _, ok := fence(l); ok {
		return true
	}
	if _, _, ok := atx(l); ok {
		return true
	}
	if thematic(l) || quoteLine(l) || htmlStart(l) {
		return true
	}
	m, ok := listMarker(l)
	return ok && !m.empty && (!m.ordered || m.start == 1)
}

// fence reads an opening or closing code fence: ``` or ~~~, 3 or more.
func fence(l string) (byte, int, bool) {
	if indent(l) > 3 {
		return 0, 0, false
	}
	t := strings.TrimLeft(l, " ")
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return 0, 0, false
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return 0, 0, false
	}
	return t[0], n, true
}

// atx reads an ATX heading: 1 to 6 #s, a space, its text, maybe closing #s.
func atx(l string) (int, string, bool) {
	if indent(l) > 3 {
		return 0, "", false
	}
	t := strings.TrimLeft(l, " ")
	n := len(t) - len(strings.TrimLeft(t, "#"))
	if n < 1 || n > 6 || (len(t) > n && t[n] != ' ') {
		return 0, "", false
	}
	text := strings.TrimSpace(t[n:])
	if k := strings.TrimRight(text, "#"); k == "" {
		text = ""
	} else if strings.HasSuffix(k, " ") {
		text = strings.TrimSpace(k)
	}
	return n, text, true
}

// thematic reads a thematic break: 3 or more of one of - * _, spaces between.
func thematic(l string) bool {
	if indent(l) > 3 {
		return false
	}
	t := strings.TrimSpace(l)
	if len(t) < 3 || !strings.Contains("-*_", t[:1]) {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case t[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// setext reads a setext heading's underline: 1 for ===, 2 for ---.
func setext(l string) int {
	if indent(l) > 3 {
		return 0
	}
	t := strings.TrimSpace(l)
	switch {
	case t == "":
		return 0
	case strings.Trim(t, "=") == "":
		return 1
	case strings.Trim(t, "-") == "":
		return 2
	}
	return 0
}

func quoteLine(l string) bool {
	return indent(l) <= 3 && strings.HasPrefix(strings.TrimLeft(l, " "), ">")
}

// unquote takes a quote's > and the space after it off a line.
func unquote(l string) string {
	t := strings.TrimLeft(l, " ")[1:]
	return strings.TrimPrefix(t, " ")
}

// htmlBlockTags are the tags that start an HTML block (CommonMark's kind 6).
var htmlBlockTags = " address article aside blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu nav noframes ol optgroup option p param pre script section style summary table tbody td textarea tfoot th thead title tr ul "

// htmlStart says whether l starts an HTML block: a comment, a declaration
// or an opening or closing block-level tag.
func htmlStart(l string) bool {
	if indent(l) > 3 {
		return false
	}
	t := strings.TrimLeft(l, " ")
	if strings.HasPrefix(t, "<!") || strings.HasPrefix(t, "<?") {
		return true
	}
	if !strings.HasPrefix(t, "<") {
		return false
	}
	t = strings.TrimPrefix(t[1:], "/")
	n := 0
	for n < len(t) && (isAlnum(t[n])) {
		n++
	}
	if n == 0 || (n < len(t) && !strings.ContainsRune(" >/", rune(t[n]))) {
		return false
	}
	return strings.Contains(htmlBlockTags, " "+strings.ToLower(t[:n])+" ")
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// marker is a list item's start.
type marker struct {
	ordered bool
	char    byte // the bullet, or '.' or ')'
	start   int
	width   int  // columns up to the item's content
	empty   bool // nothing after the marker
}

// listMarker reads a list item's marker: - + * or 1. 1) (up to 9 digits),
// then spaces or the end of the line.
func listMarker(l string) (marker, bool) {
	ind := indent(l)
	if ind > 3 {
		return marker{}, false
	}
	t := l[ind:]
	var m marker
	n := 0
	switch {
	case t != "" && strings.Contains("-+*", t[:1]):
		m.char, n = t[0], 1
	default:
		for n < len(t) && n < 9 && '0' <= t[n] && t[n] <= '9' {
			m.start = m.start*10 + int(t[n]-'0')
			n++
		}
		if n == 0 || n >= len(t) || (t[n] != '.' && t[n] != ')') {
			return marker{}, false
		}
		m.ordered, m.char = true, t[n]
		n++
	}
	rest := t[n:]
	if rest != "" && rest[0] != ' ' {
		return marker{}, false
	}
	if isBlank(rest) {
		m.empty, m.width = true, ind+n+1
		return m, true
	}
	sp := indent(rest)
	if sp > 4 { // indented code in the item: one space belongs to the marker
		sp = 1
	}
	m.width = ind + n + sp
	return m, true
}

// parseList reads the list that starts at lines[i] with marker m; it
// returns the list and the index of the line after it.
func parseList(lines []string, i int, m marker) (*block, int) {
	list := &block{kind: bList, ordered: m.ordered, start: m.start, marker: m.char, tight: true}
	for {
		first := ""
		if !m.empty {
			first = lines[i][m.width:]
		}
		inner := []string{first}
		j := i + 1
		for ; j < len(lines); j++ {
			l := lines[j]
			if isBlank(l) {
				inner = append(inner, "")
				continue
			}
			if indent(l) >= m.width {
				inner = append(inner, l[m.width:])
				continue
			}
			// A lazy line goes on the item's paragraph.
			if last := inner[len(inner)-1]; last != "" && !interrupts(l) && !thematic(l) {
				if _, ok := listMarker(l); !ok {
					inner = append(inner, lazy(l))
					continue
				}
			}
			break
		}
		// Blank lines at the item's end belong between items, if anywhere.
		for len(inner) > 1 && inner[len(inner)-1] == "" {
			inner = inner[:len(inner)-1]
			j--
		}
		item := &block{kind: bItem, children: blocks(inner)}
		for _, c := range item.children[min(1, len(item.children)):] {
			if c.blank {
				list.tight = false
			}
		}
		list.children = append(list.children, item)
		// The next item: the same kind of marker, maybe after blank lines.
		k := j
		for k < len(lines) && isBlank(lines[k]) {
			k++
		}
		if k >= len(lines) {
			return list, j
		}
		next, ok := listMarker(lines[k])
		if !ok || next.ordered != m.ordered || next.char != m.char || thematic(lines[k]) {
			return list, j
		}
		if k > j {
			list.tight = false
		}
		i, m = k, next
	}
}
