package mdterm

import (
	"strings"

	"github.com/mattn/go-runewidth"
)

// table renders a paragraph that holds a GitHub table: a header row, a
// delimiter row (| --- | :-: |) with as many cells, then body rows. Lines
// before the header stay prose. false when there is no table.
func (r *renderer) table(lines []string, width int) ([]string, bool) {
	k := -1
	var align []byte
	for i := 1; i < len(lines); i++ {
		if a, ok := delimiterRow(lines[i]); ok && len(cells(lines[i-1])) == len(a) {
			k, align = i, a
			break
		}
	}
	if k < 0 {
		return nil, false
	}
	var out []string
	if k > 1 {
		out = append(renderSource(strings.Join(lines[:k-1], "\n"), width), "")
	}
	rows := [][]string{cells(lines[k-1])}
	for _, l := range lines[k+1:] {
		rows = append(rows, cells(l))
	}
	// Each cell is inline Markdown.
	rendered := make([][]string, len(rows))
	widths := make([]int, len(align))
	for i, row := range rows {
		rendered[i] = make([]string, len(align))
		for j := range align {
			if j >= len(row) {
				continue
			}
			sgr := sgrText
			if i == 0 {
				sgr = "1;" + sgrText
			}
			runs := inlineSource(row[j], sgr)
			rendered[i][j] = strings.Join(wrap(runs, 0), " ")
			widths[j] = max(widths[j], runewidth.StringWidth(plain(runs)))
		}
	}
	bar := style("│", sgrRule)
	for i, row := range rendered {
		var b strings.Builder
		for j, cell := range row {
			if j > 0 {
				b.WriteString(" " + bar + " ")
			}
			b.WriteString(pad(cell, widths[j], align[j], j == len(row)-1))
		}
		out = append(out, strings.TrimRight(b.String(), " "))
		if i == 0 {
			var sep []string
			for _, w := range widths {
				sep = append(sep, strings.Repeat("─", w))
			}
			out = append(out, style(strings.Join(sep, "─┼─"), sgrRule))
		}
	}
	return out, true
}

// pad aligns a rendered cell in w columns: 'l', 'r' or 'c'. The last cell
// of a row gets no spaces after it.
func pad(cell string, w int, align byte, last bool) string {
	gap := w - runewidth.StringWidth(stripSGR(cell))
	if gap <= 0 {
		return cell
	}
	left := 0
	switch align {
	case 'r':
		left = gap
	case 'c':
		left = gap / 2
	}
	right := gap - left
	if last {
		right = 0
	}
	return strings.Repeat(" ", left) + cell + strings.Repeat(" ", right)
}

// delimiterRow reads a table's delimiter row: each cell :?-+:? . It
// returns each column's alignment: 'l' (default), 'r' or 'c'.
func delimiterRow(line string) ([]byte, bool) {
	if !strings.Contains(line, "-") {
		return nil, false
	}
	cs := cells(line)
	if len(cs) == 0 || (len(cs) == 1 && !strings.Contains(line, "|")) {
		return nil, false
	}
	align := make([]byte, len(cs))
	for i, c := range cs {
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		dashes := strings.Trim(c, ":")
		if dashes == "" || strings.Trim(dashes, "-") != "" {
			return nil, false
		}
		switch {
		case left && right:
			align[i] = 'c'
		case right:
			align[i] = 'r'
		default:
			align[i] = 'l'
		}
	}
	return align, true
}

// cells splits a table row at its unescaped pipes, without the pipes at
// either end.
func cells(line string) []string {
	s := strings.TrimSpace(line)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var out []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			b.WriteByte('|')
			i++
		case s[i] == '|':
			out = append(out, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(s[i])
		}
	}
	return append(out, strings.TrimSpace(b.String()))
}

// renderSource renders a piece of Markdown of its own.
func renderSource(src string, width int) []string {
	bs := parseBlocks(src)
	r := &renderer{width: width, refs: linkRefs(bs, nil)}
	return r.children(bs, false, width)
}

// inlineSource is the inline content of src as runs; src as it is when
// it does not parse as one paragraph (a cell holding "-" or "# x").
func inlineSource(src, sgr string) []run {
	if bs := parseBlocks(src); len(bs) == 1 && bs[0].kind == bPara {
		r := &renderer{}
		return r.inlines(bs[0].lines, sgr)
	}
	return []run{{src, sgr}}
}

// stripSGR removes colour codes, to measure what shows.
func stripSGR(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] == ';' || (s[j] >= '0' && s[j] <= '9')) {
				j++
			}
			if j < len(s) {
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
