//go:build unix

package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

// /diff lists a file window's edit and a command's change against the
// state before the session; /diff tool opens one in the person's
// diff_tool (a script recording what it was given); /diff undo puts one
// back, and leaves alone one changed since by someone else.
func TestREPLDiff(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	work, home := t.TempDir(), t.TempDir()
	testfs.File(t, filepath.Join(work, "a.txt"), "one\n")
	testfs.File(t, filepath.Join(work, "b.txt"), "b0\n")
	for _, c := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", work}, c...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %s", c, out)
		}
	}
	record := filepath.Join(t.TempDir(), "args")
	tool := filepath.Join(t.TempDir(), "difftool.sh")
	testfs.File(t, tool, "#!/bin/sh\nprintf '%s\\n' \"$@\" > "+record+"\ncat \"$2\" >> "+record+"\ncat \"$4\" >> "+record+"\n")
	os.Chmod(tool, 0o755)
	os.MkdirAll(filepath.Join(home, ".config", "aci"), 0o755)
	testfs.File(t, filepath.Join(home, ".config", "aci", "settings.json"), `{"diff_tool": "`+tool+` --old {old} --new {new}"}`)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(open("file", "a.txt"), edit("file_1", "one", "ONE"))},
		fakeai.Reply{Content: "edited a"},
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}}, run("bash_1", "echo b1 > b.txt"))},
		fakeai.Reply{Content: "ran it"},
	)
	s := startPaneIn(t, srv, work, home, nil, func(bin string) []string { return []string{bin} })
	s.waitPrompt()
	s.exchange("change a", "edited a")
	s.exchange("change b", "ran it")

	s.typeLine("/diff")
	scr := s.waitFor("/diff undo N")
	for _, want := range []string{"1. M a.txt", "2. M b.txt", "+ONE", "-b0", "+b1"} {
		if !strings.Contains(scr, want) {
			t.Errorf("/diff lacks %q:\n%s", want, scr)
		}
	}
	s.waitPrompt()
	s.exchange("/diff tool 2", "opening b.txt in")
	got := readFile(t, record)
	lines := strings.Split(got, "\n")
	if len(lines) < 6 || lines[0] != "--old" || lines[2] != "--new" || lines[3] != filepath.Join(work, "b.txt") || lines[4] != "b0" || lines[5] != "b1" {
		t.Errorf("the diff tool was given:\n%s", got)
	}
	if _, err := os.Stat(lines[1]); err == nil {
		t.Errorf("the before copy %s was left behind", lines[1])
	}

	testfs.File(t, filepath.Join(work, "a.txt"), "someone else's\n")
	s.exchange("/diff undo 1", "not restored, changed since by someone else: a.txt")
	s.exchange("/diff undo b.txt", "restored b.txt")
	if readFile(t, filepath.Join(work, "b.txt")) != "b0\n" || readFile(t, filepath.Join(work, "a.txt")) != "someone else's\n" {
		t.Errorf("after /diff undo: a %q b %q", readFile(t, filepath.Join(work, "a.txt")), readFile(t, filepath.Join(work, "b.txt")))
	}
}
