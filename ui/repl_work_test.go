//go:build unix

package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

func open(app, target string) fakeai.Call {
	return fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": app, "target": target}}
}

func run(window, command string) fakeai.Call {
	return fakeai.Call{Window: window, Action: "run", Params: map[string]any{"command": command}}
}

func edit(window, old, new string) fakeai.Call {
	return fakeai.Call{Window: window, Action: "edit", Params: map[string]any{"old_text": old, "new_text": new}}
}

func TestREPLShowsTheDiffOfAnEdit(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(open("file", "calc.go"), edit("file_1", "return a - b", "return a + b"))},
		fakeai.Reply{Content: "fixed"},
	)
	s := startREPL(t, srv, nil)
	testfs.File(t, filepath.Join(s.work, "calc.go"), "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n")
	s.waitPrompt()
	scr := s.exchange("fix it", "fixed")
	screenHas(t, scr, "✓ replaced 1 occurrence", "@@ -1,5 +1,5 @@", " func Add(a, b int) int {")
	for _, want := range []string{`(?m)^\s+-\s+return a - b$`, `(?m)^\s+\+\s+return a \+ b$`} {
		if !regexp.MustCompile(want).MatchString(scr) {
			t.Errorf("screen lacks %s:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "--- a/") {
		t.Errorf("the diff headers are shown:\n%s", scr)
	}
	// Added lines in green, removed in red.
	esc := s.screenEscapes()
	if !strings.Contains(esc, "\x1b[32m+") || !strings.Contains(esc, "\x1b[31m-") {
		t.Errorf("the diff is not coloured:\n%q", esc)
	}
}

func TestREPLShowsTheOutputTailAndMarksFailures(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(open("bash", ""), run("bash_1", "seq 1 20"), run("bash_1", "echo broken; exit 3"))},
		fakeai.Reply{Content: "done"},
	)
	s := readyREPL(t, srv, nil)
	scr := s.exchange("count", "done")
	screenHas(t, scr, "… 15 earlier lines", "│ 16", "│ 20", "✗ exit 3", "│ broken")
	if strings.Contains(scr, "│ 15") || strings.Contains(scr, "✓ exit 3") {
		t.Errorf("more than the tail shown, or a failure marked as success:\n%s", scr)
	}
	if !regexp.MustCompile(`\x1b\[31m✗`).MatchString(s.screenEscapes()) {
		t.Errorf("the failure mark is not red")
	}
	// /show prints the window as the model sees it.
	s.typeLine("/show bash_1")
	s.waitFor("bash_1 · bash ·")
	s.waitFor("$ echo broken; exit 3")
}

func TestREPLRendersMarkdown(t *testing.T) {
	t.Parallel()
	answer := "# Plan\n\n## Steps\n\nThis is **bold** and `code`.\n\n- one\n- two\n\n```go\nfunc main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
	srv := fakeai.New(t, fakeai.Reply{Content: answer, ChunkDelay: 2 * time.Millisecond})
	s := readyREPL(t, srv, nil)
	scr := s.exchange("plan", "· 1 step")
	screenHas(t, scr, "Plan", "Steps", "This is bold and code.", "• one", "func main() {}")
	for _, bad := range []string{"**", "```", "# Plan", "## Steps", "|---"} {
		if strings.Contains(scr, bad) {
			t.Errorf("screen shows the Markdown marker %q:\n%s", bad, scr)
		}
	}
	if n := strings.Count(scr, "func main() {}"); n != 1 {
		t.Errorf("the code shows %d times:\n%s", n, scr)
	}
	// Code can be copied as it is: no margin before it.
	if !regexp.MustCompile(`(?m)^func main\(\) \{\}$`).MatchString(scr) {
		t.Errorf("the code line is padded:\n%q", scr)
	}
}

func TestREPLPlainTextWithNoColor(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "This is **bold**."})
	s := readyREPL(t, srv, []string{"NO_COLOR=1"})
	s.typeLine("plan")
	s.waitFor("This is **bold**.")
}

func TestREPLAlwaysCoversTheExactDangerousCommand(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(open("bash", ""), run("bash_1", "git push --force origin main"))},
		fakeai.Reply{Content: fakeai.ToolCall(run("bash_1", "git push --force origin main"))},
		fakeai.Reply{Content: "pushed"},
		fakeai.Reply{Content: fakeai.ToolCall(run("bash_1", "git push --force origin main"))},
		fakeai.Reply{Content: "not pushed"},
	)
	s := readyREPL(t, srv, nil)
	s.typeLine("push")
	scr := s.waitFor("allow? ›")
	// The danger is in "git push": only the exact command is remembered.
	if !strings.Contains(scr, "a always (this exact command, this session)") {
		t.Errorf("always does not say what it covers:\n%s", scr)
	}
	scr = s.exchange("a", "pushed")
	if n := strings.Count(scr, "allow? ›"); n != 1 {
		t.Errorf("asked %d times; always should cover the same command", n)
	}
	s.typeLine("again")
	s.waitFor("not pushed")
	// A second turn asks nothing either: the answer holds for the session.
	if n := strings.Count(s.screen(), "allow? ›"); n != 1 {
		t.Errorf("asked %d times in all", n)
	}
}

func TestREPLUndo(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(open("file", "a.txt"), edit("file_1", "one", "ONE"), open("file", "new.txt"),
			fakeai.Call{Window: "file_2", Action: "write", Params: map[string]any{"content": "created\n"}})},
		fakeai.Reply{Content: "turn one done"},
		fakeai.Reply{Content: fakeai.ToolCall(edit("file_1", "two", "TWO"), open("file", "b.txt"), edit("file_3", "bee", "BEE"))},
		fakeai.Reply{Content: "turn two done"},
		fakeai.Reply{Content: "ok"},
	)
	s := startREPL(t, srv, nil)
	a, b, created := filepath.Join(s.work, "a.txt"), filepath.Join(s.work, "b.txt"), filepath.Join(s.work, "new.txt")
	testfs.File(t, a, "one\ntwo\n")
	testfs.File(t, b, "bee\n")
	if err := os.Chmod(a, 0o640); err != nil {
		t.Fatal(err)
	}
	s.waitPrompt()
	s.exchange("first", "turn one done")
	s.exchange("second", "turn two done")

	// Someone else changes b.txt after aci: /undo leaves it and says so.
	testfs.File(t, b, "BEE and mine\n")
	s.typeLine("/undo")
	s.waitFor("not restored, changed since by someone else: b.txt")
	s.waitFor("restored a.txt")
	if got := readFile(t, a); got != "ONE\ntwo\n" {
		t.Errorf("after one /undo a.txt = %q", got)
	}
	if got := readFile(t, b); got != "BEE and mine\n" {
		t.Errorf("/undo overwrote b.txt: %q", got)
	}
	// Again: the turn before; the created file goes.
	s.typeLine("/undo")
	s.waitFor("removed new.txt (created by that turn)")
	if got := readFile(t, a); got != "one\ntwo\n" {
		t.Errorf("after two /undo a.txt = %q", got)
	}
	if fi, err := os.Stat(a); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode not restored: %v %v", fi.Mode(), err)
	}
	if _, err := os.Stat(created); !os.IsNotExist(err) {
		t.Errorf("created file still there: %v", err)
	}
	s.typeLine("/undo")
	s.waitFor("nothing to undo")
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("/undo made model requests: %d", n)
	}
	// The model hears of it with the next question.
	s.typeLine("next")
	s.waitFor("ok")
	reqs := srv.Requests()
	if !mentions(reqs[len(reqs)-1], "the person ran /undo") {
		t.Errorf("the model was not told of the undo")
	}
}

func TestREPLResumeShowsTheEarlierTurns(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Looking.\n" + fakeai.ToolCall(open("bash", ""), run("bash_1", "echo hi"))},
		fakeai.Reply{Content: "The shell said **hi**."},
		fakeai.Reply{Content: "still kiwi"},
	)
	first := readyREPL(t, srv, nil)
	first.exchange("say hi in the shell", "The shell said")
	first.exit()
	// A session opened and closed with nothing in it leaves no transcript.
	empty := startPaneIn(t, srv, first.work, first.home, nil, func(bin string) []string { return []string{bin} })
	empty.waitPrompt()
	empty.keys("C-d")
	empty.exitStatus()
	files := first.transcripts()
	if len(files) != 1 {
		t.Errorf("transcripts: %v, want only the first session's", files)
	}

	second := startPaneIn(t, srv, first.work, first.home, nil, func(bin string) []string { return []string{bin, "--resume"} })
	scr := second.waitFor("── now ──")
	second.waitPrompt()
	for _, want := range []string{"resumed session", "› say hi in the shell", "Looking.", "▸ run echo hi", "✓", "The shell said hi."} {
		if !strings.Contains(scr, want) {
			t.Errorf("the resumed screen lacks %q:\n%s", want, scr)
		}
	}
}

func TestREPLPasteAfterSuspendIsOneMessage(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "got it"}, fakeai.Reply{Content: "and more"})
	var bin string
	// An interactive shell with job control, so Ctrl-Z and fg work; its
	// readline switches bracketed paste off whenever it runs a command.
	s := startPane(t, srv, []string{"PS1=$ "}, func(b string) []string {
		bin = b
		return []string{"bash", "--norc", "--noprofile", "-i"}
	})
	s.waitUntil("the shell", func(scr string) bool { return lastLine(scr) == "$" })
	s.typeLine(bin)
	s.waitPrompt()
	s.keys("C-z")
	s.waitUntil("the shell again", func(scr string) bool { return lastLine(scr) == "$" })
	// readline notices it was resumed by a gap in its ticker: a stop
	// shorter than 100 ms goes unseen, as no person could type fg so fast.
	time.Sleep(300 * time.Millisecond)
	s.typeLine("fg")
	s.waitPrompt()
	s.tmux("set-buffer", "-b", "p", "alpha\nbeta\ngamma\n")
	s.tmux("paste-buffer", "-p", "-d", "-b", "p", "-t", "aci")
	s.waitFor("[pasted text #1 +3 lines]")
	s.keys("Enter")
	s.waitFor("got it")
	time.Sleep(300 * time.Millisecond)
	reqs := srv.Requests()
	if len(reqs) != 1 || !hasMessage(reqs[0], "user", "alpha\nbeta\ngamma") {
		t.Errorf("the paste made %d requests", len(reqs))
	}
	// Leave aci and the shell, so nothing writes to the folders as they
	// are removed.
	s.waitPrompt()
	s.keys("C-d")
	s.waitUntil("the shell at the end", func(scr string) bool { return lastLine(scr) == "$" })
	s.typeLine("exit")
	s.exitStatus()
}

func TestREPLKeysCtrlJAndHome(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "two lines"})
	s := readyREPL(t, srv, nil)
	s.tmux("send-keys", "-t", "aci", "-l", "line one")
	s.keys("C-j")
	s.tmux("send-keys", "-t", "aci", "-l", "line two")
	// Home in the rxvt encoding, then type at the start; End, then Esc
	// Enter for one more line.
	s.tmux("send-keys", "-t", "aci", "-l", "\x1b[7~")
	s.tmux("send-keys", "-t", "aci", "-l", ">")
	s.keys("End")
	s.keys("Escape", "Enter")
	s.tmux("send-keys", "-t", "aci", "-l", "x!")
	s.keys("Enter")
	s.waitFor("two lines")
	if reqs := srv.Requests(); len(reqs) != 1 || !hasMessage(reqs[0], "user", ">line one\nline two\nx!") {
		t.Errorf("message: %+v", reqs[0].Messages)
	}
}

func TestREPLBangAndAtPath(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "seen"})
	s := startREPL(t, srv, nil)
	testfs.File(t, filepath.Join(s.work, "notes.txt"), "the secret word is fig\n")
	s.waitPrompt()
	s.exchange("!echo from-the-person", "│ from-the-person")
	s.tmux("send-keys", "-t", "aci", "-l", "what is in @not")
	s.keys("Tab")
	s.waitUntil("completion", func(scr string) bool { return lastLine(scr) == "› what is in @notes.txt" })
	s.keys("Enter")
	s.waitFor("seen")
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, want := range []string{"Files referenced: notes.txt (in file_1)", "the secret word is fig", "from-the-person", "the person ran `echo from-the-person`"} {
		if !mentions(reqs[0], want) {
			t.Errorf("the request lacks %q: %+v", want, reqs[0].Messages)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestREPLClearClearsTheScreen(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "remembered zucchini"}, fakeai.Reply{Content: "which vegetable?"})
	s := readyREPL(t, srv, nil)
	s.exchange("remember zucchini", "remembered zucchini")
	s.typeLine("/clear")
	s.waitUntil("a cleared screen", func(scr string) bool {
		return strings.Contains(scr, "conversation cleared") && !strings.Contains(scr, "zucchini")
	})
	// As in Claude Code and Codex, /clear also starts a new conversation.
	s.waitPrompt()
	s.typeLine("what did I ask you to remember?")
	s.waitFor("which vegetable?")
	if reqs := srv.Requests(); len(reqs) != 2 || mentions(reqs[1], "zucchini") {
		t.Errorf("after /clear the model still sees the earlier conversation")
	}
}

func TestREPLCtrlCAtApprovalDeniesAndEndsTheTurn(t *testing.T) {
	t.Parallel()
	target := filepath.Join(t.TempDir(), "out.txt")
	srv := fakeai.New(t, append(approvalReplies(target), fakeai.Reply{Content: "next turn"})...)
	s := readyREPL(t, srv, nil)
	s.typeLine("write the file")
	s.waitFor("allow? ›")
	s.keys("C-c")
	s.waitFor("⊘ denied by the person: write")
	s.waitFor("⊘ interrupted")
	s.waitPrompt()
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the write happened: %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; the cancelled turn must not go on", n)
	}
}

// Keys typed during a turn do not answer a question asked after them: "a"
// would otherwise allow for the whole session.
func TestREPLTypeaheadDoesNotAnswerAnApproval(t *testing.T) {
	t.Parallel()
	target := filepath.Join(t.TempDir(), "out.txt")
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(open("bash", ""), run("bash_1", "sleep 1"), open("file", target),
			fakeai.Call{Window: "file_1", Action: "write", Params: map[string]any{"content": "x\n"}})},
		fakeai.Reply{Content: "finished"},
	)
	s := readyREPL(t, srv, nil)
	s.typeLine("go")
	s.waitFor("▸ run sleep 1")
	s.tmux("send-keys", "-t", "aci", "-l", "also this")
	s.waitFor("allow? ›")
	time.Sleep(200 * time.Millisecond)
	if scr := s.screen(); strings.Contains(scr, "allowed") || strings.Contains(scr, "denied") {
		t.Fatalf("typeahead answered the approval:\n%s", scr)
	}
	s.typeLine("n")
	s.waitFor("⊘ denied")
	s.waitFor("finished")
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the write happened: %v", err)
	}
}

func TestREPLForkContinuesInABranch(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t,
		fakeai.Reply{Content: "first answer"},
		fakeai.Reply{Content: "second answer"},
		fakeai.Reply{Content: "branch answer"},
	)
	s := readyREPL(t, srv, nil)
	s.exchange("question one", "first answer")
	s.exchange("question two", "second answer")
	s.typeLine("/fork 9")
	s.waitFor("fork from one of them")
	s.exchange("/fork 1", "now on branch")
	s.typeLine("question three")
	s.waitFor("branch answer")
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; !mentions(last, "question one") || mentions(last, "question two") {
		t.Errorf("the branch's request does not hold exactly turn 1: %s", last.Body)
	}
	s.waitPrompt()
	s.exit()
	files := s.transcripts()
	if len(files) != 2 {
		t.Errorf("transcripts %v, want the session and its branch", files)
	}
}
