package ui

import (
	"fmt"
	"io"
	"strings"

	"github.com/aci-dev/aci/ui/mdterm"
	"github.com/mattn/go-runewidth"
)

// mdStream renders a streamed answer as Markdown, block by block: the
// block being written shows as it arrives (a raw preview), and once it is
// complete (a blank line, or the end of a code fence) the preview is
// erased and the rendered block takes its place. Nothing is printed twice
// and finished blocks never move.
type mdStream struct {
	width  int
	buf    string // the block being written
	shown  int    // bytes of buf shown as the preview
	blocks int    // blocks rendered since the last flush
	// raw is set when the preview of the block grew taller than
	// maxPreviewRows: part of it may have scrolled off the screen, where it
	// cannot be erased, so the block stays as it was streamed.
	raw bool
}

// maxPreviewRows is the tallest preview that is replaced by its rendering;
// a terminal shorter than this could not erase it all.
const maxPreviewRows = 20

// newMDStream renders for a terminal width cols.
func newMDStream(cols int) *mdStream {
	return &mdStream{width: cols}
}

// add takes the next piece of the answer and draws it. atStart tells
// whether the cursor is at the start of a line, and is updated.
func (m *mdStream) add(w io.Writer, text string, atStart *bool) {
	m.buf += strings.ReplaceAll(text, "\t", "    ")
	for {
		if m.shown == 0 {
			m.buf = strings.TrimLeft(m.buf, "\n")
		}
		end := blockEnd(m.buf)
		if end < 0 {
			break
		}
		block := m.buf[:end]
		m.emit(w, block, atStart)
		m.buf = m.buf[end:]
		m.shown = 0
	}
	if m.buf == "" || m.shown >= len(m.buf) {
		return
	}
	if m.shown == 0 {
		m.separate(w, atStart)
	}
	fmt.Fprint(w, m.buf[m.shown:])
	m.shown = len(m.buf)
	*atStart = strings.HasSuffix(m.buf, "\n")
	if !m.raw && previewRows(m.buf, m.width) > maxPreviewRows {
		m.raw = true
	}
}

// flush renders what is left: the answer (or its prose before a tool call)
// ended.
func (m *mdStream) flush(w io.Writer, atStart *bool) {
	if strings.TrimSpace(m.buf) != "" {
		m.emit(w, m.buf, atStart)
	} else if m.shown > 0 && !m.raw {
		m.erase(w)
		*atStart = true
	}
	m.buf, m.shown, m.blocks, m.raw = "", 0, 0, false
}

// separate starts a block on a fresh line, a blank line after the last.
func (m *mdStream) separate(w io.Writer, atStart *bool) {
	if !*atStart {
		fmt.Fprintln(w)
	}
	if m.blocks > 0 {
		fmt.Fprintln(w)
	}
	*atStart = true
}

// emit replaces the preview of block with its rendering.
func (m *mdStream) emit(w io.Writer, block string, atStart *bool) {
	if m.raw {
		// Too tall to erase: finish it as it streamed.
		rest := strings.TrimRight(block[min(m.shown, len(block)):], "\n")
		fmt.Fprintln(w, rest)
		m.raw = false
		m.blocks++
		*atStart = true
		return
	}
	if m.shown > 0 {
		m.erase(w)
	} else {
		m.separate(w, atStart)
	}
	fmt.Fprintln(w, m.render(block))
	m.blocks++
	*atStart = true
}

// erase moves the cursor back to where the preview began and clears from
// there to the end of the screen.
func (m *mdStream) erase(w io.Writer) {
	up := previewRows(m.buf[:m.shown], m.width)
	seq := "\r"
	if up > 0 {
		seq += fmt.Sprintf("\x1b[%dA", up)
	}
	fmt.Fprint(w, seq+"\x1b[J")
}

// trimBlank cuts the end of a rendered line that shows nothing (spaces,
// tabs and colour codes), closing the colours it leaves open.
func trimBlank(l string) string {
	end := len(l)
	for end > 0 {
		switch c := l[end-1]; {
		case c == ' ' || c == '\t':
			end--
			continue
		case c == 'm':
			j := end - 2
			for j >= 0 && (l[j] == ';' || (l[j] >= '0' && l[j] <= '9')) {
				j--
			}
			if j >= 1 && l[j] == '[' && l[j-1] == 0x1b {
				end = j - 1
				continue
			}
		}
		break
	}
	if end == len(l) {
		return l
	}
	l = l[:end]
	if strings.Contains(l, "\x1b[") {
		l += "\x1b[0m"
	}
	return l
}

// render is the block rendered, without the blank lines around it or the
// spaces at the ends of lines (they would be copied with the code). Prose
// wraps two columns short of the terminal; code lines stay whole, and the
// terminal folds what is too long: a wrapped line would be copied as two.
func (m *mdStream) render(block string) string {
	out := mdterm.Render(block, max(m.width-2, 20))
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = trimBlank(l)
	}
	// Drop the blank lines around the block, and runs of them inside.
	var kept []string
	for _, l := range lines {
		if l == "" && (len(kept) == 0 || kept[len(kept)-1] == "") {
			continue
		}
		kept = append(kept, l)
	}
	return strings.TrimRight(strings.Join(kept, "\n"), "\n")
}

// previewRows is how many rows above the cursor the preview starts, on a
// terminal cols wide: lines wrap, and a line that fills a row exactly
// leaves the cursor on it (pending wrap).
func previewRows(text string, cols int) int {
	if cols < 1 {
		cols = 80
	}
	lines := strings.Split(text, "\n")
	up := 0
	for i, l := range lines {
		w := runewidth.StringWidth(l)
		if i < len(lines)-1 {
			up += max(1, (w+cols-1)/cols)
		} else if w > 0 {
			up += (w - 1) / cols
		}
	}
	return up
}

// blockEnd is the length of the first complete block of buf, or -1: a
// block ends before a blank line, or after the line that closes a code
// fence.
func blockEnd(buf string) int {
	fence := ""
	content := false
	pos := 0
	for {
		nl := strings.IndexByte(buf[pos:], '\n')
		if nl < 0 {
			return -1
		}
		line := buf[pos : pos+nl]
		next := pos + nl + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				return next
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			for len(fence) < len(trimmed) && trimmed[len(fence)] == fence[0] {
				fence += fence[:1]
			}
			content = true
		case trimmed == "":
			if content {
				return pos
			}
		default:
			content = true
		}
		pos = next
	}
}

// proseLocked shows streamed prose: rendered as Markdown block by block
// when the renderer does so, else as it comes.
func (r *renderer) proseLocked(text string) {
	if r.md == nil {
		r.showLocked(text)
		return
	}
	text = sanitize(text)
	if strings.TrimSpace(text) == "" && r.md.buf == "" {
		return
	}
	r.spin.stopLocked()
	r.md.add(r.w, text, &r.atStart)
	r.began = true
}

// flushProseLocked renders what the Markdown stream holds.
func (r *renderer) flushProseLocked() {
	if r.md == nil {
		return
	}
	if r.md.buf != "" {
		r.spin.stopLocked()
	}
	r.md.flush(r.w, &r.atStart)
}
