package output

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultOutputLimit is the ACI_OUTPUT_LIMIT default; functions of this
// package that take a limit use it when given a limit <= 0 where "no limit"
// would mean unbounded memory.
const DefaultOutputLimit = 30000

// Truncate returns s unchanged when it fits in limit bytes (limit <= 0 means
// no limit). Otherwise it keeps a head and a tail of about limit/2 bytes each,
// cut at line boundaries when one is near and never inside a UTF-8 character,
// around a note that says what was left out and how to see more. Head plus
// tail is at most limit bytes; the note comes on top.
//
// Sizes are counted in bytes rather than runes: it is O(1), and for the mostly
// ASCII output of commands the difference does not matter.
func Truncate(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	return truncateParts(s, s, int64(len(s)), limit)
}

// TruncateTotal renders an output of total bytes of which only a prefix head
// and a suffix tail were kept (as by a Capture that dropped the middle). The
// result carries the same note as Truncate, with the true total, and head
// plus tail shown stay within limit (limit <= 0: no further cut). When head
// and tail together make up the whole output it is Truncate(head+tail, limit).
func TruncateTotal(head, tail string, total int64, limit int) string {
	if total <= int64(len(head))+int64(len(tail)) {
		return Truncate(head+tail, limit)
	}
	return truncateParts(head, tail, total, limit)
}

// truncateParts shows a prefix of head and a suffix of tail within limit,
// giving a side's unused budget to the other side.
func truncateParts(head, tail string, total int64, limit int) string {
	if limit <= 0 {
		limit = len(head) + len(tail)
	}
	hb := limit / 2
	tb := limit - hb
	if len(head) < hb {
		tb += hb - len(head)
		hb = len(head)
	}
	if len(tail) < tb {
		hb = min(len(head), hb+tb-len(tail))
		tb = len(tail)
	}
	h := cutHead(head, hb)
	t := cutTail(tail, tb)
	shown := int64(len(h) + len(t))
	// Stripping or re-encoding may make the shown text longer than what the
	// caller counted; keep the numbers consistent rather than negative.
	total = max(total, shown)
	var b strings.Builder
	b.Grow(len(h) + len(t) + 320)
	b.WriteString(h)
	b.WriteString(truncMarker(shown, total))
	b.WriteString(t)
	return b.String()
}

// truncMarker is the note between head and tail: that the text was
// truncated and by how much. How to see more depends on where the text is
// shown, so the window showing it says that (windows/hints.go).
func truncMarker(shown, total int64) string {
	return "\n[… truncated: " + strconv.FormatInt(total-shown, 10) + " characters left out, " +
		strconv.FormatInt(shown, 10) + " of " + strconv.FormatInt(total, 10) + " shown …]\n"
}

// Truncated reports whether s holds a truncation note.
func Truncated(s string) bool { return strings.Contains(s, "\n[… truncated: ") }

// cutHead returns a prefix of s of at most n bytes that ends on a character
// boundary, and before a newline when one lies in the last quarter of the
// budget, so the note starts on a line of its own without a blank line.
func cutHead(s string, n int) string {
	if n >= len(s) {
		n = len(s)
	} else {
		n = runeStartBefore(s, n)
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i >= 0 && i >= n-n/4-1 {
		return s[:i]
	}
	return dropBrokenLastRune(s)
}

// cutTail returns a suffix of s of at most n bytes that starts on a
// character boundary, and after a newline when one lies in the first quarter
// of the budget.
func cutTail(s string, n int) string {
	start := 0
	if n < len(s) {
		start = runeStartAfter(s, len(s)-n)
	}
	s = s[start:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i <= len(s)/4 {
		return s[i+1:]
	}
	// A tail that began inside a character loses the stray continuation
	// bytes (at most three, so invalid input cannot make this loop long).
	for k := 0; k < utf8.UTFMax-1 && len(s) > 0 && !utf8.RuneStart(s[0]); k++ {
		s = s[1:]
	}
	return s
}

// runeStartBefore moves i back to the start of the character it falls in.
// It steps at most three bytes, so invalid UTF-8 costs nothing.
func runeStartBefore(s string, i int) int {
	for k := 0; k < utf8.UTFMax-1 && i > 0 && i < len(s) && !utf8.RuneStart(s[i]); k++ {
		i--
	}
	return i
}

// runeStartAfter moves i forward to the start of the next character.
func runeStartAfter(s string, i int) int {
	for k := 0; k < utf8.UTFMax-1 && i < len(s) && !utf8.RuneStart(s[i]); k++ {
		i++
	}
	return i
}

// dropBrokenLastRune removes an incomplete character at the end of s, as left
// where a capture buffer ended in the middle of one.
func dropBrokenLastRune(s string) string {
	i := len(s)
	for k := 0; k < utf8.UTFMax && i > 0; k++ {
		i--
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			break
		}
	}
	return s
}
