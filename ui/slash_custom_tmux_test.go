//go:build unix

package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	promptcmd "github.com/aci-dev/aci/commands"
	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

// TestREPLPromptCommands: command files of the three folders are listed by
// /help, completed by Tab and run as turns, the project's over the
// person's, a built-in's name listed with a note.
func TestREPLPromptCommands(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "fixed it"}, fakeai.Reply{Content: "committed"}, fakeai.Reply{Content: "mine ran"})
	work, home := t.TempDir(), t.TempDir()
	testfs.File(t, filepath.Join(work, ".aci/commands/fix-issue.md"), "---\ndescription: fix a GitHub issue\nargument-hint: [number]\n---\nFix issue #$1 of the project.")
	testfs.File(t, filepath.Join(home, ".config/aci/commands/fix-issue.md"), "---\ndescription: the person's fix\n---\nPERSON $1")
	testfs.File(t, filepath.Join(home, ".config/aci/commands/mine.md"), "---\ndescription: the person's own\n---\nMine with $ARGUMENTS")
	testfs.File(t, filepath.Join(work, ".claude/commands/git/commit.md"), "---\ndescription: commit the work\nallowed-tools: Bash(git commit:*)\n---\nCommit: $ARGUMENTS")
	testfs.File(t, filepath.Join(work, ".claude/commands/help.md"), "shadowing")
	p := startPaneIn(t, srv, work, home, nil, func(bin string) []string { return []string{bin} })
	p.waitPrompt()

	p.typeLine("/help")
	scr := p.waitFor("Keys")
	for _, want := range []string{"/fix-issue [number]", "fix a GitHub issue (project)", "/git:commit", "/mine", "the person's own (user)",
		"/init", "/review [TARGET]", "/help", "cannot run: a built-in command has this name"} {
		if !strings.Contains(scr, want) {
			t.Errorf("/help lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "the person's fix") {
		t.Errorf("/help lists the person's file the project's overrides:\n%s", scr)
	}
	p.waitPrompt()

	p.tmux("send-keys", "-t", "aci", "-l", "/fix-i")
	p.keys("Tab")
	p.waitUntil("the completed command", func(s string) bool { return strings.HasSuffix(lastLine(s), "/fix-issue") })
	p.exchange("42", "fixed it")
	p.exchange("/git:commit the parser", "committed")
	p.exchange("/mine a b", "mine ran")

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range []string{"Fix issue #42 of the project.", "Commit: the parser", "Mine with a b"} {
		if got := reqs[i].LastUser(); !strings.HasPrefix(got, want) {
			t.Errorf("request %d: user message %q, want %q", i+1, got, want)
		}
	}
}

// The REPL's own commands are the names a command file cannot take.
func TestREPLCommandsAreReserved(t *testing.T) {
	reserved := map[string]bool{}
	for _, n := range promptcmd.Reserved {
		reserved[n] = true
	}
	for _, n := range commandNames() {
		if !reserved[strings.TrimPrefix(n, "/")] {
			t.Errorf("%s is not in commands.Reserved: a file could take its name", n)
		}
	}
}

// TestREPLReviewAndSkill: /review's turn changes nothing even when the
// model tries; a skill is listed by /help and runs as /NAME.
func TestREPLReviewAndSkill(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": "a.go"}},
			fakeai.Call{Window: "file_1", Action: "write", Params: map[string]any{"content": "rewritten\n"}},
		)},
		fakeai.Reply{Content: "a.go:1: [nit] fine"},
		fakeai.Reply{Content: "released"})
	work, home := t.TempDir(), t.TempDir()
	testfs.File(t, filepath.Join(work, "a.go"), "package a\n")
	testfs.File(t, filepath.Join(work, ".aci/skills/release/SKILL.md"), "---\nname: release\ndescription: Cut a release\n---\nRELEASE STEPS")
	p := startPaneIn(t, srv, work, home, nil, func(bin string) []string { return []string{bin} })
	p.waitPrompt()
	p.typeLine("/review")
	scr := p.waitFor("a.go:1: [nit] fine")
	if !strings.Contains(scr, "refused in plan mode: write a.go") { // /review's turn runs in plan mode
		t.Errorf("the refused write is not shown:\n%s", scr)
	}
	if data, _ := os.ReadFile(filepath.Join(work, "a.go")); string(data) != "package a\n" {
		t.Errorf("/review changed a.go: %q", data)
	}
	p.waitPrompt()
	p.typeLine("/help")
	if scr := p.waitFor("Keys"); !strings.Contains(scr, "/release") || !strings.Contains(scr, "Cut a release (skill)") {
		t.Errorf("/help does not list the skill:\n%s", scr)
	}
	p.waitPrompt()
	p.typeLine("/release 2.0")
	p.waitFor("released")
	if u := srv.Requests()[2].LastUser(); !strings.Contains(u, "RELEASE STEPS") || !strings.Contains(u, "ARGUMENTS: 2.0") {
		t.Errorf("/release sent %q", u)
	}
}
