// Package mdterm renders Markdown for a terminal with 256 colours: headings,
// emphasis, inline code, links, lists, quotes, code blocks and GitHub
// tables, prose wrapped to a width and code never wrapped.
//
// It parses with a CommonMark block and inline parser of its own (block.go,
// inline.go). A full renderer such as glamour links a syntax highlighter
// whose lexer and style registries, with an HTML sanitizer, cost tens of
// milliseconds of package initialisation in every run of aci, most of which
// never render Markdown; goldmark's parser alone still cost about 1 ms.
package mdterm

import (
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
)

// Styles as SGR parameters, after glamour's dark style.
const (
	sgrText     = "38;5;252"
	sgrH1       = "1;38;5;228;48;5;63"
	sgrHeading  = "1;38;5;39"
	sgrCode     = "38;5;203"
	sgrCodeBlk  = "38;5;250"
	sgrLink     = "4;38;5;30"
	sgrLinkText = "1;38;5;35"
	sgrQuote    = "3;38;5;244"
	sgrRule     = "38;5;240"
	sgrBullet   = "38;5;252"
)

// Render renders src, prose wrapped at width columns (no wrapping when
// width < 1). Blocks are separated by one blank line; the result has no
// trailing newline.
func Render(src string, width int) string {
	bs := parseBlocks(src)
	r := &renderer{width: width, refs: linkRefs(bs, nil)}
	return strings.Join(r.children(bs, false, width), "\n")
}

type renderer struct {
	width int
	refs  map[string]string // link reference definitions: label → destination
}

// children renders blocks, a blank line between them (none in a tight
// list's item).
func (r *renderer) children(bs []*block, tight bool, width int) []string {
	var out []string
	for _, c := range bs {
		lines := r.block(c, width)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// block renders one block as lines.
func (r *renderer) block(b *block, width int) []string {
	switch b.kind {
	case bPara:
		return r.paragraph(b, width)
	case bHeading:
		if b.level > 1 {
			return wrap(r.inlines(b.lines, sgrHeading), width)
		}
		// The title on a coloured band, a space either side.
		lines := wrap(r.inlines(b.lines, sgrH1), width-2)
		pad := style(" ", sgrH1)
		for i, l := range lines {
			lines[i] = pad + l + pad
		}
		return lines
	case bRule:
		return []string{style(strings.Repeat("─", max(min(width, 40), 3)), sgrRule)}
	case bCode:
		lines := make([]string, 0, max(len(b.lines), 1))
		for _, l := range b.lines {
			lines = append(lines, style(strings.ReplaceAll(l, "\t", "    "), sgrCodeBlk))
		}
		if len(lines) == 0 {
			lines = []string{""}
		}
		return lines
	case bHTML:
		return styleLines(append([]string(nil), b.lines...), sgrText)
	case bQuote:
		bar := style("│ ", sgrQuote)
		inner := r.children(b.children, false, width-2)
		for i, l := range inner {
			inner[i] = bar + l
		}
		return inner
	case bList:
		return r.list(b, width)
	}
	return nil
}

func (r *renderer) list(l *block, width int) []string {
	var out []string
	num := l.start
	for _, item := range l.children {
		marker := "• "
		if l.ordered {
			marker = strconv.Itoa(num) + string(l.marker) + " "
			num++
		}
		pad := strings.Repeat(" ", runewidth.StringWidth(marker))
		if !l.tight && len(out) > 0 {
			out = append(out, "")
		}
		inner := r.children(item.children, l.tight, width-len(pad))
		if len(inner) == 0 {
			inner = []string{""}
		}
		for i, line := range inner {
			if i == 0 {
				out = append(out, style(marker, sgrBullet)+line)
			} else if line == "" {
				out = append(out, "")
			} else {
				out = append(out, pad+line)
			}
		}
	}
	return out
}

// paragraph renders prose, or a GitHub table when the paragraph holds one
// (CommonMark sees a table as a paragraph).
func (r *renderer) paragraph(b *block, width int) []string {
	defs := styleLines(append([]string(nil), b.lines[:b.defs]...), sgrCodeBlk)
	rest := b.lines[b.defs:]
	if len(rest) == 0 {
		return defs
	}
	if lines, ok := r.table(rest, width); ok {
		return append(defs, lines...)
	}
	return append(defs, wrap(r.inlines(rest, sgrText), width)...)
}

// run is a piece of text in one style.
type run struct {
	text string
	sgr  string
}

// inlines renders the inline content of text lines as runs, in base
// style unless an inline sets its own.
func (r *renderer) inlines(lines []string, base string) []run {
	text := strings.TrimRight(strings.Join(lines, "\n"), " ")
	var out []run
	for _, in := range parseInlines(text, r.refs) {
		out = r.inline(in, base, out)
	}
	return out
}

func (r *renderer) inline(n *inline, sgr string, out []run) []run {
	switch n.kind {
	case iText:
		return append(out, run{n.text, sgr})
	case iSoftBreak:
		return append(out, run{" ", sgr})
	case iHardBreak:
		return append(out, run{"\n", sgr})
	case iCode:
		return append(out, run{n.text, sgrCode})
	case iEmph:
		add := "3"
		if n.level >= 2 {
			add = "1"
		}
		for _, c := range n.children {
			out = r.inline(c, add+";"+sgr, out)
		}
		return out
	case iLink:
		start := len(out)
		for _, c := range n.children {
			out = r.inline(c, sgrLinkText, out)
		}
		if n.dest != "" && n.dest != plain(out[start:]) {
			out = append(out, run{" ", sgr}, run{n.dest, sgrLink})
		}
		return out
	case iImage:
		var alt []run
		for _, c := range n.children {
			alt = r.inline(c, sgr, alt)
		}
		if len(alt) > 0 {
			out = append(append(out, alt...), run{" ", sgr})
		}
		return append(out, run{n.dest, sgrLink})
	case iAutoLink:
		return append(out, run{n.text, sgrLink})
	}
	return out
}

// plain is the text of runs without styles.
func plain(runs []run) string {
	var b strings.Builder
	for _, r := range runs {
		b.WriteString(r.text)
	}
	return b.String()
}

func style(s, sgr string) string {
	if s == "" || sgr == "" {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

func styleLines(lines []string, sgr string) []string {
	for i, l := range lines {
		lines[i] = style(l, sgr)
	}
	return lines
}
