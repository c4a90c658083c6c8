package tools

import "unicode/utf8"

// Longest is the length of the longest form of a secret r looks for (0:
// none): how much of a stream must wait before it can be shown.
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

// RedactStream removes secrets from text that arrives in pieces, a secret
// split across two of them included: each piece is redacted together
// with what was held back, and the last Longest()-1 bytes wait for the
// next piece (or Flush), since they may be the start of a secret. A
// secret that starts earlier than that is whole in what was seen, so
// already replaced.
type RedactStream struct {
	redact  func(string) string
	longest func() int
	held    string
}

// NewRedactStream redacts with redact, holding back longest()-1 bytes.
func NewRedactStream(redact func(string) string, longest func() int) *RedactStream {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	if longest == nil {
		longest = func() int { return 0 }
	}
	return &RedactStream{redact: redact, longest: longest}
}

// Stream is a RedactStream for r.
func (r *Redactor) Stream() *RedactStream { return NewRedactStream(r.Redact, r.Longest) }

// Write takes the next piece and returns what may be shown now.
func (s *RedactStream) Write(p string) string {
	if p == "" {
		return ""
	}
	text := s.redact(s.held + p)
	keep := s.longest() - 1
	if keep <= 0 {
		s.held = ""
		return text
	}
	cut := len(text) - keep
	if cut <= 0 {
		s.held = text
		return ""
	}
	// Never split a character between what is shown and what waits.
	for cut > 0 && !utf8.RuneStart(text[cut]) {
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
