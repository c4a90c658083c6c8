// Package mdterm renders Markdown for a terminal with 256 colours: headings,
// emphasis, inline code, links, lists, quotes, code blocks and GitHub
// tables, prose wrapped to a width and code never wrapped.
//
// It parses with goldmark's CommonMark parser alone. A full renderer such
// as glamour links a syntax highlighter whose lexer and style registries,
// with an HTML sanitizer, cost tens of milliseconds of package
// initialisation in every run of aci, most of which never render Markdown.
package mdterm

import (
	"strconv"
	"strings"
	"sync"

	"github.com/mattn/go-runewidth"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
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

// newParser is built once, on the first render: a run that renders no
// Markdown never builds it.
var newParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
})

// Render renders src, prose wrapped at width columns (no wrapping when
// width < 1). Blocks are separated by one blank line; the result has no
// trailing newline.
func Render(src string, width int) string {
	source := []byte(src)
	doc := newParser().Parse(text.NewReader(source))
	r := &renderer{src: source, width: width}
	return strings.Join(r.children(doc, width), "\n")
}

type renderer struct {
	src   []byte
	width int
}

// children renders the blocks under n, a blank line between them (none in
// a tight list item).
func (r *renderer) children(n ast.Node, width int) []string {
	tight := false
	if li, ok := n.(*ast.ListItem); ok {
		if l, ok := li.Parent().(*ast.List); ok {
			tight = l.IsTight
		}
	}
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
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

// block renders one block node as lines.
func (r *renderer) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return r.paragraph(n, width)
	case *ast.Heading:
		if n.Level > 1 {
			return wrap(r.inlines(n, sgrHeading), width)
		}
		// The title on a coloured band, a space either side.
		lines := wrap(r.inlines(n, sgrH1), width-2)
		pad := style(" ", sgrH1)
		for i, l := range lines {
			lines[i] = pad + l + pad
		}
		return lines
	case *ast.ThematicBreak:
		return []string{style(strings.Repeat("─", max(min(width, 40), 3)), sgrRule)}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return r.code(n)
	case *ast.HTMLBlock:
		var b strings.Builder
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			b.Write(seg.Value(r.src))
		}
		if n.HasClosure() {
			b.Write(n.ClosureLine.Value(r.src))
		}
		return styleLines(strings.Split(strings.TrimRight(b.String(), "\n"), "\n"), sgrText)
	case *ast.Blockquote:
		bar := style("│ ", sgrQuote)
		inner := r.children(n, width-2)
		for i, l := range inner {
			inner[i] = bar + l
		}
		return inner
	case *ast.List:
		return r.list(n, width)
	}
	// Anything else: its lines as they were written, or its blocks.
	if n.Lines().Len() > 0 {
		return r.code(n)
	}
	return r.children(n, width)
}

func (r *renderer) code(n ast.Node) []string {
	var lines []string
	segs := n.Lines()
	for i := range segs.Len() {
		seg := segs.At(i)
		l := strings.TrimRight(string(seg.Value(r.src)), "\n")
		lines = append(lines, style(strings.ReplaceAll(l, "\t", "    "), sgrCodeBlk))
	}
	if len(lines) == 0 {
		lines = []string{""}
	}
	return lines
}

func (r *renderer) list(l *ast.List, width int) []string {
	var out []string
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "• "
		if l.IsOrdered() {
			marker = strconv.Itoa(num) + string(l.Marker) + " "
			num++
		}
		pad := strings.Repeat(" ", runewidth.StringWidth(marker))
		if !l.IsTight && len(out) > 0 {
			out = append(out, "")
		}
		inner := r.children(item, width-len(pad))
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
// (goldmark's CommonMark parser sees a table as a paragraph).
func (r *renderer) paragraph(n ast.Node, width int) []string {
	if lines, ok := r.table(n, width); ok {
		return lines
	}
	return wrap(r.inlines(n, sgrText), width)
}

// run is a piece of text in one style.
type run struct {
	text string
	sgr  string
}

// inlines flattens n's inline children into runs, in base style unless an
// inline node sets its own.
func (r *renderer) inlines(n ast.Node, base string) []run {
	var out []run
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = r.inline(c, base, out)
	}
	return out
}

func (r *renderer) inline(n ast.Node, sgr string, out []run) []run {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Value(r.src)
		if !n.IsRaw() {
			v = util.UnescapePunctuations(util.ResolveNumericReferences(util.ResolveEntityNames(v)))
		}
		out = append(out, run{string(v), sgr})
		switch {
		case n.HardLineBreak():
			out = append(out, run{"\n", sgr})
		case n.SoftLineBreak():
			out = append(out, run{" ", sgr})
		}
		return out
	case *ast.String:
		return append(out, run{string(n.Value), sgr})
	case *ast.CodeSpan:
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Segment.Value(r.src))
			} else if s, ok := c.(*ast.String); ok {
				b.Write(s.Value)
			}
		}
		return append(out, run{b.String(), sgrCode})
	case *ast.Emphasis:
		add := "3"
		if n.Level >= 2 {
			add = "1"
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			out = r.inline(c, add+";"+sgr, out)
		}
		return out
	case *ast.Link:
		start := len(out)
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			out = r.inline(c, sgrLinkText, out)
		}
		dest := string(n.Destination)
		if dest != "" && dest != plain(out[start:]) {
			out = append(out, run{" ", sgr}, run{dest, sgrLink})
		}
		return out
	case *ast.Image:
		alt := r.inlines(n, sgr)
		if len(alt) > 0 {
			out = append(append(out, alt...), run{" ", sgr})
		}
		return append(out, run{string(n.Destination), sgrLink})
	case *ast.AutoLink:
		return append(out, run{string(n.URL(r.src)), sgrLink})
	case *ast.RawHTML:
		var b strings.Builder
		for i := range n.Segments.Len() {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
		return append(out, run{b.String(), sgr})
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = r.inline(c, sgr, out)
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
