package output

import (
	"strings"
	"sync"
)

// Capture is an io.Writer that keeps the first head bytes and the last tail
// bytes written to it and counts all of them, so a command that prints
// hundreds of megabytes costs O(head+tail) memory. It is safe for concurrent
// use: a command's reader writes while a window reads its progress.
type Capture struct {
	mu       sync.Mutex
	headCap  int
	head     []byte
	ring     []byte // allocated on first overflow of head; len == tail size
	ringPos  int    // next write position in ring
	ringFull bool   // ring has wrapped: all of it is valid, oldest at ringPos
	total    int64
}

// NewCapture returns a Capture keeping the first head and last tail bytes.
// Negative sizes count as zero.
func NewCapture(head, tail int) *Capture {
	return &Capture{
		headCap: max(head, 0),
		ring:    make([]byte, 0, max(tail, 0)),
	}
}

// Write keeps what fits of p in head and tail. It never fails.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	rest := p
	if n := c.headCap - len(c.head); n > 0 {
		n = min(n, len(rest))
		c.head = append(c.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) == 0 || cap(c.ring) == 0 {
		return len(p), nil
	}
	if len(c.ring) == 0 {
		c.ring = c.ring[:cap(c.ring)]
	}
	size := len(c.ring)
	if len(rest) >= size {
		copy(c.ring, rest[len(rest)-size:])
		c.ringPos, c.ringFull = 0, true
		return len(p), nil
	}
	n := copy(c.ring[c.ringPos:], rest)
	if n < len(rest) {
		c.ringPos = copy(c.ring, rest[n:])
		c.ringFull = true
	} else if c.ringPos += n; c.ringPos == size {
		c.ringPos, c.ringFull = 0, true
	}
	return len(p), nil
}

// Total is the number of bytes written so far, kept or not.
func (c *Capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// snapshot copies the kept bytes: the head, the tail in order, and whether
// bytes between them were dropped.
func (c *Capture) snapshot() (head, tail []byte, total int64, dropped bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	head = append([]byte(nil), c.head...)
	if c.ringFull {
		tail = make([]byte, 0, len(c.ring))
		tail = append(tail, c.ring[c.ringPos:]...)
		tail = append(tail, c.ring[:c.ringPos]...)
	} else {
		tail = append([]byte(nil), c.ring[:c.ringPos]...)
	}
	return head, tail, c.total, c.total > int64(len(head)+len(tail))
}

// Text renders what was written as text for the model: terminal escapes
// stripped, invalid UTF-8 replaced, and cut to limit bytes with the
// truncation note, which carries the true total even when the capture had
// already dropped the middle. limit <= 0 shows all that was kept.
func (c *Capture) Text(limit int) string {
	head, tail, total, dropped := c.snapshot()
	if !dropped {
		return Truncate(cleanCaptured(string(head)+string(tail)), limit)
	}
	// Each side is cleaned on its own; a character split at a seam is
	// dropped rather than turned into a replacement character.
	h := cleanCaptured(dropBrokenLastRune(string(head)))
	t := string(tail)
	t = t[runeStartAfter(t, 0):]
	return TruncateTotal(h, cleanCaptured(t), total, limit)
}

// Tail returns about the last n bytes written (fewer when the capture kept
// fewer), as clean text like Text: for showing the progress of a command.
func (c *Capture) Tail(n int) string {
	if n <= 0 {
		return ""
	}
	head, tail, _, dropped := c.snapshot()
	s := string(tail)
	if !dropped && len(s) < n {
		s = string(head) + s
	}
	// Start on a character boundary, whether n or the ring's seam cut it.
	s = s[runeStartAfter(s, max(0, len(s)-n)):]
	return cleanCaptured(s)
}

// cleanCaptured makes captured bytes fit for the model: no terminal escapes and
// valid UTF-8, as JSON encoding would otherwise mangle invalid bytes anyway.
func cleanCaptured(s string) string {
	return strings.ToValidUTF8(StripANSI(s), "\uFFFD")
}
