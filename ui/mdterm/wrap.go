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
	var line spans
	col := 0
	for i, w := range words(runs) {
		sep := 0
		if w.space != "" && col > 0 {
			sep = 1
		}
		if i > 0 && (w.newline || (width > 0 && col > 0 && col+sep+w.width > width)) {
			lines = append(lines, line.String())
			line = spans{}
			col, sep = 0, 0
		}
		if sep == 1 {
			line.add(" ", strings.TrimSuffix(w.space, "\x00"))
			col++
		}
		for _, f := range w.frags {
			line.add(f.text, f.sgr)
		}
		col += w.width
	}
	if s := line.String(); s != "" || len(lines) == 0 {
		lines = append(lines, s)
	}
	return lines
}

// spans builds a styled line, one colour code for each stretch of text in
// the same style rather than one for every word.
type spans struct {
	b   strings.Builder
	cur strings.Builder
	sgr string
}

func (s *spans) add(text, sgr string) {
	if sgr != s.sgr {
		s.flush()
		s.sgr = sgr
	}
	s.cur.WriteString(text)
}

func (s *spans) flush() {
	s.b.WriteString(style(s.cur.String(), s.sgr))
	s.cur.Reset()
}

func (s *spans) String() string {
	s.flush()
	return s.b.String()
}
