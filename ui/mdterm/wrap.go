package mdterm

import (
	"strings"

	"github.com/mattn/go-runewidth"
)

// word is what wrapping never splits: text between spaces, possibly in
// several styles ("**bold**text").
type word struct {
	frags   []run
	width   int
	space   string // the style of the space before it ("" at a line start)
	newline bool   // a hard line break comes before it
}

// words splits runs at spaces and hard line breaks.
func words(runs []run) []word {
	var ws []word
	cur := word{}
	space, newline := "", false
	started := false // cur has text
	flush := func() {
		if started {
			ws = append(ws, cur)
		}
		cur, started = word{}, false
	}
	for _, r := range runs {
		rest := r.text
		for rest != "" {
			i := strings.IndexAny(rest, " \t\n")
			if i != 0 {
				piece := rest
				if i > 0 {
					piece = rest[:i]
				}
				if !started {
					cur = word{space: space, newline: newline}
					space, newline, started = "", false, true
				}
				cur.frags = append(cur.frags, run{piece, r.sgr})
				cur.width += runewidth.StringWidth(piece)
				rest = rest[len(piece):]
				continue
			}
			flush()
			if rest[0] == '\n' {
				newline, space = true, ""
			} else if !newline {
				space = r.sgr + "\x00" // marks a space, even in no style
			}
			rest = rest[1:]
		}
	}
	flush()
	return ws
}

// wrap lays runs out in lines of at most width columns (no limit when
// width < 1); a word wider than a line gets a line of its own.
func wrap(runs []run, width int) []string {
	var lines []string
	var b strings.Builder
	col := 0
	for i, w := range words(runs) {
		sep := 0
		if w.space != "" && col > 0 {
			sep = 1
		}
		if i > 0 && (w.newline || (width > 0 && col > 0 && col+sep+w.width > width)) {
			lines = append(lines, b.String())
			b.Reset()
			col, sep = 0, 0
		}
		if sep == 1 {
			b.WriteString(style(" ", strings.TrimSuffix(w.space, "\x00")))
			col++
		}
		for _, f := range w.frags {
			b.WriteString(style(f.text, f.sgr))
		}
		col += w.width
	}
	if b.Len() > 0 || len(lines) == 0 {
		lines = append(lines, b.String())
	}
	return lines
}
