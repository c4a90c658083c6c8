//go:build unix

package ui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

// typedQuestions are the three questions whose turns the model gets with
// aci's additions (plan mode's note, a command's prompt, /init's) and the
// person sees as typed.
var typedQuestions = []string{"how would you fix calc?", "/fix-issue 9 low", "/init"}

// aciAdditions are words only the model's copy of those questions holds.
var aciAdditions = []string{"[aci:", "permission mode plan", "Fix issue #9", "Study this project"}

// The REPL shows what the person typed, not what aci added for the model:
// as each turn runs, in the input history (up-arrow), in --resume's replay
// of the session and in the rewind picker (and the question it gives back).
func TestREPLShowsTypedWords(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "Plan: 1. read calc"}, fakeai.Reply{Content: "fixed"}, fakeai.Reply{Content: "wrote it"})
	work, home := t.TempDir(), t.TempDir()
	testfs.File(t, filepath.Join(work, ".aci/commands/fix-issue.md"), "---\ndescription: fix an issue\n---\nFix issue #$1 ($ARGUMENTS) with care.")
	p := startPaneIn(t, srv, work, home, nil, func(bin string) []string { return []string{bin, "--permission-mode", "plan"} })
	p.waitUntil("plan in the prompt", func(scr string) bool { return lastLine(scr) == "plan ›" })
	p.exchange(typedQuestions[0], "Plan: 1. read calc")
	p.exchange("/mode default", "mode default (acceptEdits)")
	p.exchange(typedQuestions[1], "fixed")
	scr := p.exchange(typedQuestions[2], "wrote it")

	reqs := srv.Requests()
	if len(reqs) != 3 || !mentions(reqs[0], "[aci: permission mode plan") || !mentions(reqs[1], "Fix issue #9 (9 low) with care.") {
		t.Fatalf("the model did not get aci's additions: %+v", reqs)
	}
	shownAsTyped(t, "the live turns", scr)

	// Up-arrow gives each line back as typed, the last first.
	for _, want := range []string{typedQuestions[2], typedQuestions[1], "/mode default", typedQuestions[0]} {
		p.keys("Up")
		p.waitUntil("history entry "+want, func(s string) bool { return strings.HasSuffix(lastLine(s), want) })
	}
	p.keys("C-u")
	p.exit()

	back := startPaneIn(t, srv, work, home, nil, func(bin string) []string { return []string{bin, "--resume"} })
	back.waitFor("── now ──")
	scr = back.waitPrompt()
	shownAsTyped(t, "--resume's replay", scr)

	// The rewind picker lists the questions as typed, and puts the one
	// chosen back at the prompt as typed.
	back.typeLine("/rewind")
	scr = back.waitFor("question [3]")
	for i, q := range typedQuestions {
		if !strings.Contains(scr, fmt.Sprintf("%d  %s\n", i+1, q)) {
			t.Errorf("the rewind picker lacks question %d %q:\n%s", i+1, q, scr)
		}
	}
	back.typeLine("2")
	back.waitFor("restore: Enter files and conversation")
	back.typeLine("")
	back.waitFor("back before question 2")
	back.waitUntil("the question back at the prompt", func(scr string) bool { return lastLine(scr) == "› "+typedQuestions[1] })
	shownAsTyped(t, "the rewind", back.screen())
}

// shownAsTyped checks a screen shows each typed question after the prompt
// arrow and none of aci's additions.
func shownAsTyped(t *testing.T, where, scr string) {
	t.Helper()
	for _, q := range typedQuestions {
		if !strings.Contains(scr, "› "+q+"\n") {
			t.Errorf("%s lack the question %q:\n%s", where, q, scr)
		}
	}
	for _, a := range aciAdditions {
		if strings.Contains(scr, a) {
			t.Errorf("%s show aci's addition %q:\n%s", where, a, scr)
		}
	}
}
