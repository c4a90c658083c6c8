package ui

import (
	"time"

	"github.com/chzyer/readline"
)

// Esc Esc at an empty prompt opens /rewind, as in Claude Code. readline
// takes Esc as the start of a sequence, a second one too, so the key
// reader before it (pasteReader) turns a second lone Esc into escEscKey,
// which filterKey sees; the line's length comes from readline's listener,
// which hears every change.

// escEscKey stands for the second Esc of a pair (a private-use rune no
// keyboard sends).
const escEscKey = '\uE0E5'

// escPairWindow is how soon the second Esc must follow the first.
const escPairWindow = 1500 * time.Millisecond

// escPair spots Esc pressed twice: a read that is a lone Esc (a terminal
// sends other keys that start with Esc whole, in one read) soon after
// another, or both in one read.
type escPair struct{ last time.Time }

// pair reports whether a read completes Esc Esc, and the key to hand on
// for it. The first Esc waits in pasteReader's held bytes (it may start a
// paste marker), so the pair replaces it.
func (e *escPair) pair(b []byte, inPaste bool) ([]byte, bool) {
	switch {
	case inPaste:
	case string(b) == "\x1b\x1b":
		e.last = time.Time{}
		return []byte(string(escEscKey)), true
	case string(b) == "\x1b":
		if !e.last.IsZero() && time.Since(e.last) < escPairWindow {
			e.last = time.Time{}
			return []byte(string(escEscKey)), true
		}
		e.last = time.Now()
		return nil, false
	}
	e.last = time.Time{}
	return nil, false
}

// escEscLine is what a read returns for Esc Esc at an empty prompt.
const escEscLine = "\x1b\x1b"

type escEsc struct {
	armed bool // this read takes Esc Esc (the prompt or the rewind picker)
	empty bool // the line is empty now
	fired bool
}

// onChange is readline's listener: it tracks whether the line is empty.
func (in *input) onChange(line []rune, _ int, key rune) ([]rune, int, bool) {
	if key == 0 {
		return nil, 0, false // a read begins: the line may hold a preset
	}
	in.keyMu.Lock()
	in.esc.empty = len(line) == 0
	in.keyMu.Unlock()
	return nil, 0, false
}

// escKey handles Esc Esc (keyMu held): at an armed empty prompt it ends
// the line; elsewhere it is dropped rather than typed as a control
// character.
func (in *input) escKey() (rune, bool) {
	if in.esc.armed && in.esc.empty {
		in.esc.fired = true
		return readline.CharEnter, true
	}
	return escEscKey, false
}

// armedRead reads a line in which Esc Esc at an empty prompt counts (when
// armed): it returns escEscLine for it.
func (in *input) armedRead(armed bool) (string, error) {
	in.keyMu.Lock()
	preset := in.preset
	in.esc, in.preset = escEsc{armed: armed, empty: preset == ""}, ""
	in.keyMu.Unlock()
	// Set as the line's text, not written to readline's input: written,
	// it would wait there until the next key.
	line, err := in.rl.ReadlineWithDefault(preset)
	in.keyMu.Lock()
	fired := in.esc.fired
	in.esc = escEsc{}
	in.keyMu.Unlock()
	if fired && err == nil {
		return escEscLine, nil
	}
	return line, err
}
