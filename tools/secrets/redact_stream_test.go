package secrets

import (
	"strings"
	"testing"
)

func TestRedactStreamAcrossPieces(t *testing.T) {
	secret := "sk-live-0123456789abcdef"
	r := NewRedactor(secret)
	for _, tc := range []struct {
		name string
		text string
	}{
		{"secret in the middle", "before " + secret + " after"},
		{"secret at the start", secret + " after"},
		{"secret at the end", "the key is " + secret},
		{"two secrets", secret + " and " + secret},
		{"no secret", "nothing to hide here, only ünïcode"},
		{"json form", `{"key":"` + secret + `"}`},
	} {
		want := r.Redact(tc.text)
		// Every split into two pieces, and one byte at a time.
		for i := 0; i <= len(tc.text); i++ {
			s := r.Stream()
			got := s.Write(tc.text[:i]) + s.Write(tc.text[i:]) + s.Flush()
			if got != want {
				t.Fatalf("%s split at %d: got %q, want %q", tc.name, i, got, want)
			}
		}
		s := r.Stream()
		var b strings.Builder
		for i := 0; i < len(tc.text); i++ {
			out := s.Write(tc.text[i : i+1])
			if strings.Contains(b.String()+out, secret[:len(secret)-1]) {
				t.Fatalf("%s: most of the secret went out before it was whole: %q", tc.name, b.String()+out)
			}
			b.WriteString(out)
		}
		if b.WriteString(s.Flush()); b.String() != want {
			t.Fatalf("%s byte by byte: got %q, want %q", tc.name, b.String(), want)
		}
	}
}

func TestRedactStreamHoldsOnlyWhatMayBeASecret(t *testing.T) {
	s := NewRedactor().Stream()
	if got := s.Write("abc"); got != "abc" {
		t.Fatalf("no secrets: got %q", got)
	}
	s = NewRedactor("sk-live-0123456789abcdef").Stream()
	if got := s.Write("tick-1\n"); got != "tick-1\n" {
		t.Fatalf("text that cannot start a secret waits: got %q", got)
	}
	if got := s.Write("key: sk-li"); got != "key: " {
		t.Fatalf("got %q", got)
	}
	if got := s.Write("ght\n"); got != "sk-light\n" {
		t.Fatalf("got %q", got)
	}
}
