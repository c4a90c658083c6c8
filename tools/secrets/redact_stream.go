package secrets

import (
	"strings"
	"unicode/utf8"
)

// Longest is the length of the longest form of a secret r looks for (0:
// none).
func (r *Redactor) Longest() int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.forms) == 0 {
		return 0
	}
	return len(r.forms[0]) // longest first
}

// Partial is the length of the longest end of s that is the start of a
// form of a secret (and not the whole form): what must wait for the next
// piece of a stream before it can be shown.
func (r *Redactor) Partial(s string) int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	best := 0
	for _, f := range r.forms {
		for k := min(len(f)-1, len(s)); k > best; k-- {
			if strings.HasSuffix(s, f[:k]) {
				best = k
				break
			}
		}
	}
	return best
}

// RedactStream removes secrets from text that arrives in pieces, a secret
// split across two of them included: each piece is redacted together
// with what was held back, and an end that may be the start of a secret
// waits for the next piece (or Flush). A secret that starts earlier is
// whole in what was seen, so already replaced. Text with no such end is
// shown at once.
type RedactStream struct {
	redact  func(string) string
	partial func(string) int
	held    string
}

// NewRedactStream redacts with redact, holding back the end of the text
// whose length partial gives.
func NewRedactStream(redact func(string) string, partial func(string) int) *RedactStream {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	if partial == nil {
		partial = func(string) int { return 0 }
	}
	return &RedactStream{redact: redact, partial: partial}
}

// Stream is a RedactStream for r.
func (r *Redactor) Stream() *RedactStream { return NewRedactStream(r.Redact, r.Partial) }

// Write takes the next piece and returns what may be shown now.
func (s *RedactStream) Write(p string) string {
	if p == "" {
		return ""
	}
	text := s.redact(s.held + p)
	cut := len(text) - s.partial(text)
	// Never split a character between what is shown and what waits.
	for cut > 0 && cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut--
	}
	s.held = text[cut:]
	return text[:cut]
}

// Flush returns what was held back: the stream has ended.
func (s *RedactStream) Flush() string {
	text := s.redact(s.held)
	s.held = ""
	return text
}
