package ui

import (
	"bytes"
	"sync"
)

// Focus reporting (xterm's mode 1004): the terminal sends ESC [ I when its
// window gains focus and ESC [ O when it loses it. aci turns it on in the
// REPL and notifies only while the terminal is not focused. A terminal
// that never reports (one without the mode, or tmux without focus-events)
// leaves the focus unknown, and aci notifies then as if it were not
// focused: Claude Code rings whatever the focus; Codex, which tracks
// focus the same way, stays silent where it cannot know, which would make
// notifications never come on those terminals.
const (
	focusReportOn  = "\x1b[?1004h"
	focusReportOff = "\x1b[?1004l"
	focusIn        = "\x1b[I"
	focusOut       = "\x1b[O"
)

// termFocus is the focus of the process's terminal: the one key reader
// (repl_keys.go) takes the reports out, the notifier reads it. A process has one terminal.
var termFocus = &focusState{}

type focusState struct {
	mu    sync.Mutex
	known bool // a report came
	in    bool
}

// focused reports whether the terminal is known to be focused.
func (f *focusState) focused() bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.known && f.in
}

// strip takes the focus reports out of keys read from the terminal and
// notes the last one. Reports come whole in one read.
func (f *focusState) strip(b []byte) []byte {
	if !bytes.Contains(b, []byte(focusIn)) && !bytes.Contains(b, []byte(focusOut)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		switch {
		case bytes.HasPrefix(b, []byte(focusIn)), bytes.HasPrefix(b, []byte(focusOut)):
			f.mu.Lock()
			f.known, f.in = true, b[2] == 'I'
			f.mu.Unlock()
			b = b[len(focusIn):]
		default:
			out = append(out, b[0])
			b = b[1:]
		}
	}
	return out
}
