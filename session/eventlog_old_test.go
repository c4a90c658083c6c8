package session

import "testing"

// An older aci stored a question as the model got it: the person's words
// are what is left without aci's notes and the files list.
func TestTypedOfAnOldQuestion(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"fix it", "fix it"},
		{"[aci: the person ran /undo: restored a.txt.]\n\nfix it", "fix it"},
		{"[aci: one]\n[aci: two]\n\nfix it\nplease", "fix it\nplease"},
		{"look at @a.go\n\nFiles referenced: a.go (in file_1)", "look at @a.go"},
		{"[aci: x]\n\nsee @b\n\nFiles referenced: b (in file_2)", "see @b"},
	} {
		if got := typedOf(tc.in); got != tc.want {
			t.Errorf("typedOf(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
