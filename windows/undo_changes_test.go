package windows

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The session's changes: a file window's edits and a command's, across
// turns, each against the first turn's before; a file put back (undo of a
// turn) drops out; reverting one file puts it back as it was before the
// session, and a file someone else changed since is left alone.
func TestSessionChangesAndRevert(t *testing.T) {
	dir := t.TempDir()
	gitInit(t, dir)
	p := func(n string) string { return filepath.Join(dir, n) }
	read := func(n string) string { b, _ := os.ReadFile(p(n)); return string(b) }
	writeFile(t, p("a.txt"), "a0\n", 0o644)
	writeFile(t, p("b.txt"), "b0\n", 0o644)
	writeFile(t, p("gone.txt"), "g0\n", 0o644)
	writeFile(t, p("undone.txt"), "u0\n", 0o644)
	gitCommit(t, dir, ".")
	j := NewUndoJournal()

	j.BeginTurn(1)
	journalled(t, j, p("a.txt"), "a1\n")
	j.BeforeCommand(dir) // a command: changes b, removes gone, creates new
	writeFile(t, p("b.txt"), "b1\n", 0o644)
	os.Remove(p("gone.txt"))
	writeFile(t, p("new.txt"), "n1\n", 0o644)
	j.EndTurn()
	j.BeginTurn(2)
	journalled(t, j, p("a.txt"), "a2\n")
	j.BeforeCommand(dir)
	writeFile(t, p("b.txt"), "b2\n", 0o644)
	j.EndTurn()
	j.BeginTurn(3)
	journalled(t, j, p("undone.txt"), "u3\n")
	j.EndTurn()
	if _, err := j.Undo(); err != nil { // turn 3 put back: undone.txt is as before
		t.Fatal(err)
	}

	got := map[string]SessionChange{}
	var order []string
	for _, c := range j.Changes() {
		rel, _ := filepath.Rel(dir, c.Path)
		got[rel] = c
		order = append(order, rel+":"+c.Status)
	}
	want := "a.txt:modified b.txt:modified gone.txt:deleted new.txt:added"
	if strings.Join(order, " ") != want {
		t.Fatalf("changes %v, want %s", order, want)
	}
	if d := got["b.txt"].Diff("b.txt"); !strings.Contains(d, "-b0") || !strings.Contains(d, "+b2") || strings.Contains(d, "b1") {
		t.Errorf("b.txt's diff is not against before the first turn:\n%s", d)
	}
	if d := got["a.txt"].Diff("a.txt"); !strings.Contains(d, "-a0") || !strings.Contains(d, "+a2") {
		t.Errorf("a.txt's diff:\n%s", d)
	}

	for name, want := range map[string]string{"b.txt": "b0\n", "gone.txt": "g0\n"} {
		res, err := j.RevertFile(p(name))
		if err != nil || len(res.Restored) != 1 {
			t.Fatalf("revert %s: %+v %v", name, res, err)
		}
		if read(name) != want {
			t.Errorf("%s after revert: %q", name, read(name))
		}
	}
	if res, _ := j.RevertFile(p("new.txt")); len(res.Removed) != 1 {
		t.Errorf("revert of a created file: %+v", res)
	}
	if _, err := os.Stat(p("new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a file the session created is still there after its revert")
	}
	writeFile(t, p("a.txt"), "a by someone else\n", 0o644)
	if res, _ := j.RevertFile(p("a.txt")); len(res.Refused) != 1 || read("a.txt") != "a by someone else\n" {
		t.Errorf("a file changed since was overwritten: %+v, %q", res, read("a.txt"))
	}
	if _, err := j.RevertFile(p("never.txt")); !errors.Is(err, ErrNotChanged) {
		t.Errorf("revert of a file never changed: %v", err)
	}
	if left := j.Changes(); len(left) != 1 || filepath.Base(left[0].Path) != "a.txt" {
		t.Errorf("after the reverts the changes are %+v", left)
	}
}
