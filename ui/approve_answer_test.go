package ui

import "testing"

// A line typed at the question answers only when it says so: a sentence
// never allows, and what follows "no" is the reason.
func TestReadAnswer(t *testing.T) {
	for _, tc := range []struct {
		line   string
		want   verdict
		reason string
	}{
		{"", verdictNone, ""},
		{"   ", verdictNone, ""},
		{"y", verdictYes, ""},
		{"Y", verdictYes, ""},
		{"yes", verdictYes, ""},
		{" Yes! ", verdictYes, ""},
		{"a", verdictAlways, ""},
		{"always", verdictAlways, ""},
		{"ALWAYS.", verdictAlways, ""},
		{"1", verdictYes, ""},
		{"2", verdictAlways, ""},
		{"3", verdictNo, ""},
		{"n", verdictNo, ""},
		{"no", verdictNo, ""},
		{"No.", verdictNo, ""},
		{"no, keep it", verdictNo, "keep it"},
		{"n keep it", verdictNo, "keep it"},
		{"no way", verdictNo, "no way"},
		{"no - use trash", verdictNo, "use trash"},
		{"no,", verdictNo, ""},
		{"no: use trash instead", verdictNo, "use trash instead"},
		{"absolutely not", verdictNo, "absolutely not"},
		{"allow it", verdictNo, "allow it"},
		{"nope", verdictNo, "nope"},
		{"not now", verdictNo, "not now"},
		{"keep out of that folder", verdictNo, "keep out of that folder"},
		{"12", verdictNo, "12"},
		{"yes please", verdictUnsure, ""},
		{"yes, but not src", verdictUnsure, ""},
		{"a bad idea", verdictUnsure, ""},
		{"always do that", verdictUnsure, ""},
		{"yesterday's build", verdictNo, "yesterday's build"},
	} {
		v, reason := readAnswer(tc.line)
		if v != tc.want || reason != tc.reason {
			t.Errorf("readAnswer(%q) = %v %q, want %v %q", tc.line, v, reason, tc.want, tc.reason)
		}
	}
}
