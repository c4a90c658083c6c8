package output

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aci-dev/aci/tools/secrets"
)

// LiveMax bounds the raw output a LiveText holds between two takes: a
// command that prints faster than its reader takes loses the excess from
// the live view (never from its result), and memory stays bounded.
const LiveMax = 64 << 10

// maxHeldEscape is how far back an unfinished escape sequence is looked
// for at the end of a piece.
const maxHeldEscape = 256

// LiveText turns a running command's raw output, as it arrives, into
// clean text pieces for people: terminal escapes stripped (a sequence cut
// between two writes included), invalid UTF-8 replaced, secrets removed
// (a secret cut between two pieces included). Write never blocks and
// never fails, so a command is never slowed by who reads its output;
// Take returns what came since the last take. It is safe for concurrent
// use: the command's reader writes while another goroutine takes.
type LiveText struct {
	mu      sync.Mutex
	pending []byte // raw bytes not taken yet, at most LiveMax
	skipped int64  // bytes dropped since the last take: pending was full
	closed  bool   // the command's output ended

	// The taker's own.
	carry   string                // an unfinished escape, CR or character, for the next take
	midLine bool                  // the text taken so far does not end a line
	redact  *secrets.RedactStream // nil: no redaction
}

// NewLiveText cleans output and removes secrets with redact (nil: none).
func NewLiveText(redact *secrets.RedactStream) *LiveText { return &LiveText{redact: redact} }

// Write keeps p for the next Take, as much as fits.
func (l *LiveText) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	room := LiveMax - len(l.pending)
	if room >= len(p) {
		l.pending = append(l.pending, p...)
		return len(p), nil
	}
	if room > 0 {
		l.pending = append(l.pending, p[:room]...)
	}
	l.skipped += int64(len(p) - max(room, 0))
	return len(p), nil
}

// Close says the output ended; Take then returns the rest.
func (l *LiveText) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	return nil
}

// Closed reports whether the output ended.
func (l *LiveText) Closed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// Take returns the clean text written since the last take. Until the
// output ends (Close, or final) an unfinished escape sequence, carriage
// return, character or possible start of a secret waits for the next.
func (l *LiveText) Take(final bool) string {
	l.mu.Lock()
	raw, skipped := l.pending, l.skipped
	l.pending, l.skipped = nil, 0
	final = final || l.closed
	l.mu.Unlock()
	s := l.carry + string(raw)
	l.carry = ""
	if !final {
		cut := heldBack(s)
		s, l.carry = s[:cut], s[cut:]
	}
	var text string
	if s != "" {
		// A line rewritten with a carriage return after part of it was
		// shown goes on a line of its own: what was shown stays.
		first, _, _ := strings.Cut(s, "\n")
		if l.midLine && strings.Contains(strings.TrimSuffix(first, "\r"), "\r") {
			s = "\n" + s
		}
		text = strings.ToValidUTF8(StripANSI(s), "\uFFFD")
	}
	if skipped > 0 {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += fmt.Sprintf("[… %d bytes printed faster than they could be shown …]\n", skipped)
	}
	if text != "" {
		l.midLine = !strings.HasSuffix(text, "\n")
	}
	if l.redact != nil {
		text = l.redact.Write(text)
		if final {
			text += l.redact.Flush()
		}
	}
	return text
}

// heldBack is where s should be cut so that what follows — an unfinished
// escape sequence, a carriage return that may start "\r\n", the first
// bytes of a character — waits for more.
func heldBack(s string) int {
	cut := len(s)
	if i := unfinishedEscape(s); i >= 0 {
		cut = i
	}
	if cut > 0 && s[cut-1] == '\r' {
		cut--
	}
	// An incomplete UTF-8 character at the end.
	for i := cut - 1; i >= 0 && i >= cut-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:cut]) {
				cut = i
			}
			break
		}
	}
	return cut
}

// unfinishedEscape is the index of an escape sequence that s ends before
// it is complete, or -1.
func unfinishedEscape(s string) int {
	from := max(0, len(s)-maxHeldEscape)
	i := strings.LastIndexByte(s[from:], 0x1b)
	if i < 0 {
		return -1
	}
	i += from
	rest := s[i+1:]
	if rest == "" {
		return i
	}
	switch c := rest[0]; {
	case c == '[':
		for j := 1; j < len(rest); j++ {
			if b := rest[j]; b < 0x20 || b > 0x3F {
				return -1 // its final byte (or what breaks it) came
			}
		}
		return i
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		if strings.ContainsAny(rest, "\x07\n") {
			return -1
		}
		return i
	case c >= 0x20 && c <= 0x2F:
		for j := 1; j < len(rest); j++ {
			if b := rest[j]; b < 0x20 || b > 0x2F {
				return -1
			}
		}
		return i
	}
	return -1
}
