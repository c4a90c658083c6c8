package ui

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// liveTailLines is how many of a running command's last lines show under
// its action line.
const liveTailLines = 4

// liveTail is a running command's output as the REPL shows it while it
// runs: its last lines, dim, under the action line, redrawn in place as
// more comes, and replaced by the usual preview when it ends.
type liveTail struct {
	call  string // the call whose output it shows
	held  bool   // a question is on screen: take the output, draw nothing
	text  string // the last of the output (a few KB)
	drawn int    // rows on screen now
	mark  int64  // what the renderer had written when they were drawn
}

// countingWriter counts what the renderer writes, so the tail is only
// erased when nothing was written under it since (a question, a note).
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.w.Write(p)
}

// liveLocked takes a piece of the running command's output and redraws
// the tail. Without a terminal to redraw on, the output shows in the
// preview when the command ends.
func (r *renderer) liveLocked(text string) {
	if r.spin.w == nil || text == "" {
		return
	}
	r.tail.text += text
	if n := len(r.tail.text); n > 8<<10 {
		r.tail.text = r.tail.text[n-8<<10:]
	}
	if r.tail.held {
		return
	}
	label, start := r.spin.pauseLocked()
	r.eraseTailLocked()
	r.endLineLocked()
	lines, _ := tailLines(r.tail.text, liveTailLines)
	width := screenWidth() - 6
	for _, l := range lines {
		fmt.Fprintln(r.w, "    "+r.dim.Sprint("│ "+clip(strings.TrimRight(l, " "), width-2)))
	}
	r.tail.drawn, r.tail.mark = len(lines), r.w.n
	r.spin.resumeLocked(label, start)
}

// eraseTailLocked removes the tail from the screen, when nothing was
// written under it since it was drawn.
func (r *renderer) eraseTailLocked() {
	if r.tail.drawn == 0 {
		return
	}
	r.spin.stopLocked()
	if r.w.n == r.tail.mark {
		fmt.Fprintf(r.spin.w, "\x1b[%dA\x1b[J", r.tail.drawn)
	}
	r.tail.drawn = 0
}

// pauseLocked stops the spinner and says what it showed and since when,
// for resumeLocked.
func (s *spinner) pauseLocked() (string, time.Time) {
	label, start := s.label, s.start
	s.stopLocked()
	return label, start
}

// resumeLocked shows label again with its clock running from start.
func (s *spinner) resumeLocked(label string, start time.Time) {
	if label == "" {
		return
	}
	s.startLocked(label)
	s.start = start
	s.drawLocked(0) // at once: it was on screen a moment ago
}
