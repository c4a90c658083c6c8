package ui

import (
	"errors"
	"strings"
	"sync"
	"unicode/utf8"
)

// Typing during a turn. While a turn runs the prompt stays usable: keys
// are read as they come (no echo, Ctrl-C still cancels), the line being
// typed shows beside the spinner, and Enter hands it to the running turn —
// the model reads it with its next request — or, once the turn has made
// its last request, keeps it for the next turn. A slash command or !cmd
// typed then waits for the prompt. readline is not used meanwhile: it
// would redraw its prompt into the streamed answer.

var errStopped = errors.New("stopped")

// typeahead reads the lines typed while a turn runs, from the terminal's
// one reader (repl_keys.go); a question asked meanwhile takes the keys
// over and gives them back, the draft kept.
type typeahead struct {
	keys   *keyOwner
	onLine func(string)
	done   chan struct{}
	undo   func() // the terminal's settings before

	mu     sync.Mutex
	draft  []rune
	pend   []byte // an incomplete UTF-8 sequence or escape
	paste  bool   // inside a bracketed paste: newlines are text
	closed bool
}

// startTyping takes the keys from h until stop; each line typed goes to
// onLine (on the reading goroutine). It returns nil where keys cannot be
// read so.
func startTyping(h *keyHub, fd int, draft string, onLine func(string)) *typeahead {
	if h == nil {
		return nil
	}
	t := &typeahead{keys: h.claim(false), onLine: onLine, done: make(chan struct{}), undo: keysMode(fd), draft: []rune(draft)}
	go t.run()
	return t
}

func (t *typeahead) run() {
	defer close(t.done)
	for {
		b, err := t.keys.take()
		if err != nil {
			return
		}
		for _, line := range t.feed(b) {
			t.onLine(line)
		}
	}
}

// stop ends the reading and gives the terminal back as it was; it returns
// what was typed and not yet sent.
func (t *typeahead) stop() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return ""
	}
	t.closed = true
	t.mu.Unlock()
	t.keys.release()
	<-t.done
	t.undo()
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.draft)
}

// shown is the line being typed, for the spinner ("" when none).
func (t *typeahead) shown() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ReplaceAll(string(t.draft), "\n", "⏎")
}

// feed takes keys and returns the lines they ended.
func (t *typeahead) feed(b []byte) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	data := append(t.pend, b...)
	t.pend = nil
	var lines []string
	for len(data) > 0 {
		c := data[0]
		if c == 0x1b {
			n, ok := t.escape(data)
			if !ok {
				t.pend = append([]byte(nil), data...)
				return lines
			}
			data = data[n:]
			continue
		}
		if c < 0x80 {
			data = data[1:]
			switch c {
			case '\r', '\n':
				if t.paste {
					t.draft = append(t.draft, '\n')
					continue
				}
				if line := strings.TrimSpace(string(t.draft)); line != "" {
					lines = append(lines, line)
				}
				t.draft = t.draft[:0]
			case 0x7f, 0x08: // Backspace
				if n := len(t.draft); n > 0 {
					t.draft = t.draft[:n-1]
				}
			case 0x15: // Ctrl-U
				t.draft = t.draft[:0]
			case 0x17: // Ctrl-W
				s := strings.TrimRight(string(t.draft), " ")
				if i := strings.LastIndex(s, " "); i >= 0 {
					t.draft = []rune(s[:i+1])
				} else {
					t.draft = t.draft[:0]
				}
			case '\t':
				t.draft = append(t.draft, ' ')
			default:
				if c >= 0x20 {
					t.draft = append(t.draft, rune(c))
				}
			}
			continue
		}
		if !utf8.FullRune(data) {
			t.pend = append([]byte(nil), data...)
			return lines
		}
		r, n := utf8.DecodeRune(data)
		data = data[n:]
		if r != utf8.RuneError {
			t.draft = append(t.draft, r)
		}
	}
	return lines
}

// escape consumes an escape sequence at the start of data: the bracketed
// paste markers switch paste mode, others (arrows, function keys) are
// dropped. ok is false when the sequence is not complete yet.
func (t *typeahead) escape(data []byte) (n int, ok bool) {
	if len(data) < 2 {
		return 0, false
	}
	if data[1] != '[' && data[1] != 'O' {
		return 2, true // Alt-key
	}
	for i := 2; i < len(data); i++ {
		if data[i] >= 0x40 && data[i] <= 0x7e {
			switch string(data[:i+1]) {
			case pasteStart:
				t.paste = true
			case pasteEnd:
				t.paste = false
			}
			return i + 1, true
		}
	}
	if len(data) > 16 {
		return len(data), true // a runaway sequence is dropped
	}
	return 0, false
}
