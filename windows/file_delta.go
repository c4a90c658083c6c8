package windows

import (
	"fmt"
	"strings"

	"github.com/aci-dev/aci/tools/textfile"
)

// deltaContext is how many unchanged lines frame a changed region.
const deltaContext = 3

// fileChanges shows only the lines of the viewport that changed since prev,
// framed by a few lines of context, when the viewport stayed where it was
// and the change is a small part of it. Line numbers are the file's new
// ones; the header says how lines below the change moved.
func (w *fileWindow) fileChanges(prev, cur View) (string, bool) {
	p, ok1 := prev.State.(fileState)
	c, ok2 := cur.State.(fileState)
	if !ok1 || !ok2 {
		return "", false
	}
	if p.key == c.key {
		return "", true
	}
	if text, ok := w.editOutside(p, c); ok {
		return text, true
	}
	if p.key.start != c.key.start || p.key.count != c.key.count || p.first != c.first ||
		len(p.lines) == 0 || len(c.lines) == 0 || p.total == 0 || c.total == 0 {
		return "", false
	}
	shift := c.total - p.total
	lo := 0 // first changed index in the viewport
	for lo < len(p.lines) && lo < len(c.lines) && p.lines[lo] == c.lines[lo] {
		lo++
	}
	if lo == len(p.lines) && lo == len(c.lines) {
		return "", true // same lines: only the stat changed (a touch)
	}
	// Walk up from the bottom: below the change, new index j shows what
	// old index j-shift showed. After a deletion the viewport's last lines
	// come from below the old viewport: they are shown too.
	bottom := len(c.lines) - 1
	for bottom >= lo && bottom-shift >= len(p.lines) {
		bottom--
	}
	hiNew := bottom
	for hiNew >= lo {
		i := hiNew - shift
		if i < lo || p.lines[i] != c.lines[hiNew] {
			break
		}
		hiNew--
	}
	if hiNew == bottom && c.first+len(c.lines)-1 < c.total {
		// Nothing below the change matched: its extent is unknown.
		return "", false
	}
	changed := hiNew - lo + 1 // lines of the new viewport that differ
	if (changed+len(c.lines)-1-bottom)*5 > len(c.lines)*3 {
		return "", false // most of it changed: show it whole
	}
	var b strings.Builder
	from, to := c.first+lo, c.first+hiNew
	fmt.Fprintf(&b, "%s: %d %s", w.title, c.total, plural(c.total, "line"))
	if shift != 0 {
		fmt.Fprintf(&b, " (was %d)", p.total)
	}
	switch {
	case changed <= 0:
		fmt.Fprintf(&b, "; %d %s deleted after line %d", -shift, plural(-shift, "line"), from-1)
	case to-shift < from:
		fmt.Fprintf(&b, "; lines %d-%d inserted", from, to)
	case shift == 0:
		fmt.Fprintf(&b, "; lines %d-%d changed", from, to)
	default:
		fmt.Fprintf(&b, "; lines %d-%d changed (were %d-%d)", from, to, from, to-shift)
	}
	if shift != 0 {
		fmt.Fprintf(&b, "; lines below moved by %+d", shift)
	}
	end := c.first + len(c.lines) - 1
	fmt.Fprintf(&b, "; viewport %d-%d; the rest of it is as shown before:", c.first, end)
	ctxFrom := max(lo-deltaContext, 0)
	ctxTo := min(hiNew+deltaContext, bottom)
	if ctxFrom > 0 {
		b.WriteString("\n…")
	}
	writeNumbered(&b, c.first+ctxFrom, c.lines[ctxFrom:ctxTo+1])
	if bottom < len(c.lines)-1 {
		if ctxTo < bottom {
			b.WriteString("\n…")
		}
		writeNumbered(&b, c.first+bottom+1, c.lines[bottom+1:])
	} else if ctxTo < len(c.lines)-1 {
		b.WriteString("\n…")
	}
	return b.String(), true
}

// editMark is an edit the window made outside its viewport: from the file
// signed from to the file signed to, lines first-last (new numbers) changed
// and the lines below moved by shift.
type editMark struct {
	from, to    textfile.Signature
	first, last int
	shift       int
	ctxFrom     int      // number of the first line of lines
	lines       []string // the changed lines with their context
}

// editOutside renders the window's own edit outside its viewport, when it
// is the only change between the two views.
func (w *fileWindow) editOutside(p, c fileState) (string, bool) {
	w.mu.Lock()
	e := w.lastEdit
	w.mu.Unlock()
	if e == nil || p.key.sig != e.from || c.key.sig != e.to || p.key.count != c.key.count {
		return "", false
	}
	moved := c.key.start - p.key.start
	if moved != 0 && moved != e.shift {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d %s", w.title, c.total, plural(c.total, "line"))
	if e.shift != 0 {
		fmt.Fprintf(&b, " (was %d)", p.total)
	}
	fmt.Fprintf(&b, "; your edit changed lines %d-%d, outside the viewport", e.first, e.last)
	end := c.first + len(c.lines) - 1
	switch {
	case moved != 0:
		fmt.Fprintf(&b, "; the viewport kept its lines, now numbered %d-%d (%+d)", c.first, end, moved)
	case len(c.lines) > 0:
		fmt.Fprintf(&b, "; the viewport %d-%d is unchanged", c.first, end)
	}
	b.WriteString(":")
	writeNumbered(&b, e.ctxFrom, e.lines)
	return b.String(), true
}
