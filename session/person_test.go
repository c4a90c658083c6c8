package session

import "testing"

func TestPersonText(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain",
		`a <system_hint type="canceled">The command was cancelled.</system_hint>`: "a note: The command was cancelled.",
		"<system_hint>go on</system_hint>":                                        "note: go on",
	} {
		if got := PersonText(in); got != want {
			t.Errorf("PersonText(%q) = %q, want %q", in, got, want)
		}
	}
}
