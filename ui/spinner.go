package ui

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

var spinFrames = []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

// spinner shows that aci is waiting: a turning mark, what it waits for and
// the seconds so far, redrawn in place on a line of its own. It shares the
// renderer's lock, so it never draws in the middle of other output; its
// methods ending in Locked expect that lock held.
type spinner struct {
	mu    *sync.Mutex
	w     io.Writer // nil: off (not a terminal)
	style func(string) string
	erase string // the erase-line sequence, or "" to overwrite with spaces

	gen   int // bumped on every start and stop; a drawing goroutine of an older generation quits
	label string
	start time.Time
	shown int // columns drawn on screen, 0 when nothing is
	// draft, when set, is the line the person is typing during the turn,
	// drawn after the label (repl_steer.go).
	draft func() string
}

// delay before the first frame: a step that ends sooner leaves no trace.
const spinDelay = 150 * time.Millisecond

// startLocked shows label, keeping the clock if it already shows it.
func (s *spinner) startLocked(label string) {
	if s.w == nil || (s.label == label && s.label != "") {
		return
	}
	s.stopLocked()
	s.label, s.start = label, time.Now()
	go s.run(s.gen)
}

// stopLocked erases the spinner; the cursor is left at the start of its
// (now empty) line.
func (s *spinner) stopLocked() {
	s.gen++
	s.label = ""
	switch {
	case s.shown == 0:
	case s.erase != "":
		fmt.Fprint(s.w, "\r"+s.erase)
	default:
		fmt.Fprint(s.w, "\r"+strings.Repeat(" ", s.shown)+"\r")
	}
	s.shown = 0
}

// activeLocked returns what the spinner shows, "" when it is off.
func (s *spinner) activeLocked() string { return s.label }

func (s *spinner) run(gen int) {
	time.Sleep(spinDelay)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		s.mu.Lock()
		if s.gen != gen {
			s.mu.Unlock()
			return
		}
		s.drawLocked(i)
		s.mu.Unlock()
		<-tick.C
	}
}

func (s *spinner) drawLocked(i int) {
	secs := int(time.Since(s.start).Seconds())
	text := fmt.Sprintf("%c %s %ds", spinFrames[i%len(spinFrames)], s.label, secs)
	n := utf8.RuneCountInString(text)
	typed := ""
	if s.draft != nil {
		if d := []rune(s.draft()); len(d) > 0 {
			room := max(screenWidth()-n-5, 10)
			if len(d) > room {
				d = append([]rune("…"), d[len(d)-room+1:]...)
			}
			typed = "  › " + string(d)
			n += utf8.RuneCountInString(typed)
		}
	}
	// Drawn over the last frame: spaces erase what a shorter line leaves.
	pad := ""
	if n < s.shown {
		pad = strings.Repeat(" ", s.shown-n) + strings.Repeat("\b", s.shown-n)
	}
	fmt.Fprint(s.w, "\r"+s.style(text)+typed+pad)
	s.shown = max(n, s.shown)
}
