package output

// StripANSI removes what only makes sense to a terminal, so the model sees
// the text a person would see: CSI sequences (colours, cursor moves), OSC and
// other string sequences (titles, hyperlinks; ended by BEL or ESC \), other
// ESC sequences, and control characters except newline and tab. A carriage
// return that is followed by more text on the same line overwrites that line,
// as progress bars intend: only the last segment is kept, while "\r\n" stays
// a plain line end. A backspace erases the character before it.
//
// It is a single forward pass with no backtracking; a sequence cut off by
// the end of the input is dropped.
func StripANSI(s string) string {
	if !needsStrip(s) {
		return s
	}
	out := make([]byte, 0, len(s))
	lineStart := 0     // index in out where the current line begins
	pendingCR := false // a \r was seen: the next text overwrites the line
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			out = append(out, c)
			lineStart, pendingCR = len(out), false
			i++
		case c == '\r':
			pendingCR = true
			i++
		case c == '\b':
			if !pendingCR && len(out) > lineStart {
				j := len(out) - 1
				for j > lineStart && out[j]&0xC0 == 0x80 {
					j--
				}
				out = out[:j]
			}
			i++
		case c == 0x1b:
			var eraseLine bool
			i, eraseLine = skipEscape(s, i, pendingCR)
			if eraseLine {
				out = out[:lineStart]
			}
		case ansiTextByte(c):
			if pendingCR {
				out = out[:lineStart]
				pendingCR = false
			}
			j := i + 1 // copy the whole run of text at once
			for j < len(s) && ansiTextByte(s[j]) {
				j++
			}
			out = append(out, s[i:j]...)
			i = j
		default: // other control characters
			i++
		}
	}
	return string(out)
}

// ansiTextByte reports whether c is kept as is: printable, tab, or part of a
// multi-byte UTF-8 character.
func ansiTextByte(c byte) bool { return ansiTextBytes[c] }

// ansiTextBytes is ansiTextByte as a table: the test sits in the hot loop.
var ansiTextBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != 0x7f || c == '\t'
	}
	return t
}()

// needsStrip reports whether s holds anything StripANSI would change, so
// clean output costs no allocation.
func needsStrip(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !ansiTextByte(c) && c != '\n' {
			return true
		}
	}
	return false
}

// skipEscape returns the index just past the escape sequence starting at
// s[i] == ESC, and whether it erases the current line (an "erase in line"
// with the cursor at the line start or for the whole line, as progress
// bars send it).
func skipEscape(s string, i int, atLineStart bool) (int, bool) {
	i++ // ESC
	if i >= len(s) {
		return i, false
	}
	c := s[i]
	switch {
	case c == '[': // CSI: parameters 0x30-0x3F, intermediates 0x20-0x2F, final 0x40-0x7E
		i++
		p := i
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3F {
			i++
		}
		if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7E {
			erase := s[i] == 'K' && (s[p:i] == "2" || (atLineStart && (s[p:i] == "" || s[p:i] == "0")))
			return i + 1, erase
		}
		return i, false // malformed: drop what was read, keep the byte that broke it
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		// OSC, DCS, SOS, PM, APC: a string ended by BEL or ST (ESC \). A
		// newline also ends it: real sequences hold none, and a stray
		// "ESC ]" must not swallow the rest of the output.
		for i++; i < len(s); i++ {
			switch s[i] {
			case 0x07:
				return i + 1, false
			case '\n':
				return i, false
			case 0x1b:
				if i+1 < len(s) && s[i+1] == '\\' {
					return i + 2, false
				}
				return i, false // another sequence begins: this one was cut
			}
		}
		return i, false
	case c >= 0x20 && c <= 0x2F: // nF: intermediates then a final byte, e.g. ESC ( B
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2F {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7E {
			i++
		}
		return i, false
	case c >= 0x30 && c <= 0x7E: // two-byte sequences: ESC 7, ESC =, ESC M ...
		return i + 1, false
	}
	return i, false // lone ESC before a control character: drop the ESC only
}
