package ui

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aci-dev/aci/protocol"
)

const (
	pasteStart        = "\x1b[200~"
	pasteEnd          = "\x1b[201~"
	bracketedPasteOn  = "\x1b[?2004h"
	bracketedPasteOff = "\x1b[?2004l"
	// inlinePasteMax is the longest paste typed into the line as it is;
	// readline redraws the whole line for every rune it inserts.
	inlinePasteMax = 200
)

// pasteReader sits between the terminal and readline. It takes a bracketed
// paste out of the key stream whole, so its newlines do not send the
// message line by line: a short one-line paste is typed in as it is, any
// other becomes a placeholder that the pasted text replaces when the
// message is sent.
type pasteReader struct {
	r       io.Reader
	store   *pasteStore
	buf     []byte
	out     []byte // ready for readline
	held    []byte // a possible marker cut by the end of a read
	paste   []byte // the paste so far
	inPaste bool
	escEsc  escPair // Esc pressed twice (rewind_keys.go)
}

func (p *pasteReader) Read(b []byte) (int, error) {
	for len(p.out) == 0 {
		if p.buf == nil {
			p.buf = make([]byte, 4096)
		}
		n, err := p.r.Read(p.buf)
		chunk := p.buf[:n] // focus reports are gone already (repl_keys.go)
		if key, ok := p.escEsc.pair(chunk, p.inPaste); ok {
			p.held, p.out = nil, append(p.out, key...) // the first Esc is held: it goes
			continue
		}
		p.feed(chunk)
		if err != nil {
			if !p.inPaste {
				p.out, p.held = append(p.out, p.held...), nil
			}
			if len(p.out) == 0 {
				return 0, err
			}
		}
	}
	n := copy(b, p.out)
	p.out = p.out[n:]
	return n, nil
}

func (p *pasteReader) feed(data []byte) {
	data = append(p.held, data...)
	p.held = nil
	for len(data) > 0 {
		marker := []byte(pasteStart)
		if p.inPaste {
			marker = []byte(pasteEnd)
		}
		if i := bytes.Index(data, marker); i >= 0 {
			if p.inPaste {
				p.paste = append(p.paste, data[:i]...)
				p.out = append(p.out, p.store.add(string(p.paste))...)
				p.paste = nil
			} else {
				p.out = append(p.out, p.plain(data[:i])...)
			}
			p.inPaste = !p.inPaste
			data = data[i+len(marker):]
			continue
		}
		k := protocol.PartialSuffix(string(data), string(marker))
		if p.inPaste {
			p.paste = append(p.paste, data[:len(data)-k]...)
		} else {
			p.out = append(p.out, p.plain(data[:len(data)-k])...)
		}
		p.held = append([]byte(nil), data[len(data)-k:]...)
		break
	}
}

// pasteStore keeps the pasted texts of the message being typed. The reader
// fills it on readline's goroutine, the REPL empties it on its own.
type pasteStore struct {
	mu    sync.Mutex
	items []pasteItem
}

type pasteItem struct{ placeholder, text string }

// add returns what to type for a paste: the text, or a placeholder.
func (s *pasteStore) add(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.TrimRight(strings.ReplaceAll(text, "\r", "\n"), "\n")
	if text == "" {
		return ""
	}
	if utf8.RuneCountInString(text) <= inlinePasteMax && sanitize(text) == text && !strings.ContainsAny(text, "\n\t") {
		return text
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.items) + 1
	ph := fmt.Sprintf("[pasted text #%d, %d chars]", n, utf8.RuneCountInString(text))
	if lines := strings.Count(text, "\n") + 1; lines > 1 {
		ph = fmt.Sprintf("[pasted text #%d +%d lines]", n, lines)
	}
	s.items = append(s.items, pasteItem{ph, text})
	return ph
}

// expand puts the pasted texts in place of their placeholders and forgets
// them.
func (s *pasteStore) expand(msg string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range s.items {
		msg = strings.Replace(msg, it.placeholder, it.text, 1)
	}
	s.items = nil
	return msg
}

func (s *pasteStore) reset() { s.expand("") }

// keyTranslator maps keys readline does not know to ones it does: Home and
// End in the encodings of xterm, rxvt, tmux and screen become Ctrl-A and
// Ctrl-E; Ctrl-J (a bare line feed: Enter sends a carriage return in raw
// mode) and Esc Enter insert a newline into the message, as the history
// does, with newlineMark.
var keyTranslator = strings.NewReplacer(
	"\x1b[1~", "\x01", "\x1b[7~", "\x01", "\x1bOH", "\x01", "\x1b[H", "\x01",
	"\x1b[4~", "\x05", "\x1b[8~", "\x05", "\x1bOF", "\x05", "\x1b[F", "\x05",
	"\x1b\r", newlineMark, "\n", newlineMark, "\x1b[Z", shiftTabMark,
)

func translateKeys(b []byte) []byte {
	if !bytes.ContainsAny(b, "\x1b\n") {
		return b
	}
	return []byte(keyTranslator.Replace(string(b)))
}

// plain passes typed keys on. Several lines arriving in one read are a
// paste from a terminal without bracketed paste (or with it switched off
// behind aci's back): taken whole, like a bracketed one, so that a pasted
// block is one message rather than one per line. Keys typed by hand come
// one read at a time; a line and its Enter together are not a burst.
func (p *pasteReader) plain(b []byte) []byte {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 && len(bytes.TrimRight(b[i:], "\r\n")) > 0 && !bytes.Contains(b, []byte("\x1b")) {
		return []byte(p.store.add(string(b)))
	}
	return translateKeys(b)
}
