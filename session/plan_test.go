package session

import "testing"

// TestIsPlan: a plan turn's answer is a plan to accept when it has
// numbered steps, as the model is told to end with.
func TestIsPlan(t *testing.T) {
	for answer, want := range map[string]bool{
		"Plan:\n1. write plan.txt":                   true,
		"## Plan\n\n1) open main.go\n2) fix the bug": true,
		"The project is a small Go CLI.":             false,
		"It has 2 packages. 3.5 is the version.":     false,
		"":                                           false,
	} {
		if got := IsPlan(answer); got != want {
			t.Errorf("IsPlan(%q) = %v, want %v", answer, got, want)
		}
	}
}
