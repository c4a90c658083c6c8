package session

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutOutput(t *testing.T) {
	for _, tc := range []struct {
		in   string
		keep bool
	}{
		{"short", true},
		{strings.Repeat("é", maxRecordedOutput), false},
	} {
		got := cutOutput(tc.in)
		if (got == tc.in) != tc.keep || len(got) > maxRecordedOutput+100 || !utf8.ValidString(got) {
			t.Errorf("cutOutput(%d bytes) = %d bytes", len(tc.in), len(got))
		}
	}
}
