package output

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/tools/secrets"
)

// takeAll writes raw in the given pieces, taking after each, and returns
// the pieces taken.
func takeAll(l *LiveText, pieces ...string) []string {
	var out []string
	for _, p := range pieces {
		l.Write([]byte(p))
		if t := l.Take(false); t != "" {
			out = append(out, t)
		}
	}
	l.Close()
	if t := l.Take(false); t != "" {
		out = append(out, t)
	}
	return out
}

func TestLiveTextJoinsWhatATerminalShows(t *testing.T) {
	secret := "ghp_secretvalue0123456789"
	for _, tc := range []struct {
		name   string
		pieces []string
		want   string
	}{
		{"lines", []string{"one\n", "two\n"}, "one\ntwo\n"},
		{"colour split inside its code", []string{"\x1b[3", "1mred\x1b[0", "m\n"}, "red\n"},
		{"osc title split", []string{"\x1b]0;tit", "le\x07text\n"}, "text\n"},
		{"crlf split", []string{"a\r", "\nb\n"}, "a\nb\n"},
		{"character split", []string{"caf\xc3", "\xa9\n"}, "café\n"},
		{"progress in one piece", []string{"10%\r50%\r100%\n"}, "100%\n"},
		{"progress after a shown part", []string{"10%", "\r50%\n"}, "10%\n50%\n"},
		{"secret split", []string{"key=" + secret[:7], secret[7:] + "\n"}, "key=[REDACTED]\n"},
	} {
		l := NewLiveText(secrets.NewRedactor(secret).Stream())
		got := strings.Join(takeAll(l, tc.pieces...), "")
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLiveTextIsBounded(t *testing.T) {
	l := NewLiveText(nil)
	chunk := []byte(strings.Repeat("x", 1000) + "\n")
	for i := 0; i < 1000; i++ {
		l.Write(chunk)
	}
	if len(l.pending) > LiveMax {
		t.Fatalf("holds %d bytes, more than %d", len(l.pending), LiveMax)
	}
	got := l.Take(true)
	if !strings.Contains(got, "bytes printed faster than they could be shown") {
		t.Fatalf("no note of what was left out: …%q", got[len(got)-100:])
	}
}
