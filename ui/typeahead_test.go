package ui

import (
	"strings"
	"testing"
)

// The line reader of a turn edits as a terminal line does, takes a paste
// whole, and drops other escape sequences, whatever the pieces the keys
// arrive in.
func TestTypeaheadFeed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pieces []string
		lines  []string
		draft  string
	}{
		{"a line", []string{"hello\r"}, []string{"hello"}, ""},
		{"two lines and a draft", []string{"one\rtwo\rthr"}, []string{"one", "two"}, "thr"},
		{"backspace", []string{"hellp\x7fo\r"}, []string{"hello"}, ""},
		{"ctrl-u clears", []string{"wrong\x15right\r"}, []string{"right"}, ""},
		{"ctrl-w drops a word", []string{"keep this word\x17"}, nil, "keep this "},
		{"arrows dropped", []string{"a\x1b[Ab\x1b[D\r"}, []string{"ab"}, ""},
		{"escape split across reads", []string{"a\x1b", "[", "Cb\r"}, []string{"ab"}, ""},
		{"utf-8 split across reads", []string{"caf\xc3", "\xa9\r"}, []string{"café"}, ""},
		{"paste keeps its newlines", []string{pasteStart + "x\ny" + pasteEnd + "\r"}, []string{"x\ny"}, ""},
		{"blank lines are not sent", []string{"   \r\r"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ta typeahead
			var got []string
			for _, p := range tc.pieces {
				got = append(got, ta.feed([]byte(p))...)
			}
			if strings.Join(got, "|") != strings.Join(tc.lines, "|") || string(ta.draft) != tc.draft {
				t.Errorf("lines %q draft %q, want %q %q", got, string(ta.draft), tc.lines, tc.draft)
			}
		})
	}
}
