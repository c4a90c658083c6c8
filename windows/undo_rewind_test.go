package windows

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// journalled records path in the journal as a file window does, then writes
// (or, for "", removes) it.
func journalled(t *testing.T, j *UndoJournal, path, data string) {
	t.Helper()
	j.Record(path)
	if data == "" {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		return
	}
	writeFile(t, path, data, 0o644)
}

// Rewinding to a question puts back every file the turns from it on
// changed, newest turn first; one changed since by someone else is left
// alone and named; one that cannot be written back (its folder gone) is
// named while the rest come back.
func TestRewindToAQuestion(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	read := func(n string) string { b, _ := os.ReadFile(p(n)); return string(b) }
	writeFile(t, p("a"), "a0\n", 0o644)
	writeFile(t, p("b"), "b0\n", 0o644)
	writeFile(t, p("c"), "c0\n", 0o644)
	if err := os.Mkdir(p("d"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p("d/x"), "x0\n", 0o644)
	j := NewUndoJournal()

	j.BeginTurn(1) // kept: the rewind goes back before question 2
	journalled(t, j, p("c"), "c1\n")
	j.EndTurn()
	j.BeginTurn(2)
	journalled(t, j, p("a"), "a2\n")
	journalled(t, j, p("d/x"), "")
	j.EndTurn()
	j.BeginTurn(3)
	j.EndTurn() // changed nothing
	j.BeginTurn(4)
	journalled(t, j, p("a"), "a4\n")
	journalled(t, j, p("b"), "b4\n")
	journalled(t, j, p("new"), "created\n")
	journalled(t, j, p("c"), "c4\n")
	j.EndTurn()

	writeFile(t, p("c"), "c by someone else\n", 0o644)
	// The folder d is replaced by a file: d/x cannot come back.
	if err := os.RemoveAll(p("d")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p("d"), "not a folder\n", 0o644)

	u, err := j.RewindTo(2)
	if err != nil {
		t.Fatal(err)
	}
	if read("a") != "a0\n" || read("b") != "b0\n" {
		t.Errorf("a %q b %q, want them as before question 2 (%+v)", read("a"), read("b"), u)
	}
	if _, err := os.Stat(p("new")); err == nil {
		t.Errorf("a file created after question 2 is still there")
	}
	if read("c") != "c by someone else\n" || !slices.Equal(u.Refused, []string{p("c")}) {
		t.Errorf("c %q refused %v: someone else's change must stay, named", read("c"), u.Refused)
	}
	if len(u.Failed) != 1 || !strings.HasPrefix(u.Failed[0], p("d/x")+": ") {
		t.Errorf("failed %v, want d/x named with why", u.Failed)
	}
	slices.Sort(u.Restored)
	if !slices.Equal(u.Restored, []string{p("a"), p("b")}) || !slices.Equal(u.Removed, []string{p("new")}) {
		t.Errorf("restored %v removed %v", u.Restored, u.Removed)
	}
	// Those turns are forgotten; question 1's change stays to undo.
	if _, err := j.RewindTo(2); !errors.Is(err, ErrNothingToRewind) {
		t.Errorf("a second rewind to 2: %v", err)
	}
	j.DropFrom(1)
	if _, err := j.Undo(); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("DropFrom(1) left a turn to undo: %v", err)
	}
}

// What commands changed comes back too (a git workspace), across turns.
func TestRewindCommandChanges(t *testing.T) {
	m, dir, j := journalledGit(t)
	writeFile(t, filepath.Join(dir, "f.txt"), "v0\n", 0o644)
	gitCommit(t, dir, "f.txt")
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	for i, cmd := range []string{"echo v1 > f.txt", "echo v2 > f.txt; echo n > made.txt"} {
		j.BeginTurn(i + 1)
		if r := do(t, m, "bash_1", "run", `{"command":"`+cmd+`"}`); r.Status != "ok" {
			t.Fatal(r.Text)
		}
		j.EndTurn()
	}
	u, err := j.RewindTo(1)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(b) != "v0\n" {
		t.Errorf("f.txt = %q after the rewind (%+v)", b, u)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Errorf("made.txt is still there (%+v)", u)
	}
}
