//go:build unix

package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

func TestREPLBannerHelpCompletionExit(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t)
	s := startREPL(t, srv, nil)
	scr := s.waitPrompt()
	for _, want := range []string{"aci 0.1.0", "test-model", "/help for commands"} {
		if !strings.Contains(scr, want) {
			t.Errorf("banner lacks %q:\n%s", want, scr)
		}
	}

	s.typeLine("/help")
	scr = s.waitFor("Ctrl-R")
	for _, want := range []string{"/help", "/reset", "/clear", "/new", "/windows", "/usage", "/exit", "/quit"} {
		if !strings.Contains(scr, want) {
			t.Errorf("/help lacks %s:\n%s", want, scr)
		}
	}

	s.typeLine("/frobnicate")
	s.waitFor("unknown command /frobnicate · /help lists the commands")

	// Tab completes a command.
	s.tmux("send-keys", "-t", "aci", "-l", "/win")
	s.keys("Tab")
	s.waitUntil("completion", func(scr string) bool { return lastLine(scr) == "› /windows" })
	s.keys("Enter")
	s.waitFor("launcher       launcher   Launcher")

	s.exit()
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("slash commands made %d model requests", n)
	}
}

func TestREPLCtrlDExits(t *testing.T) {
	t.Parallel()
	s := startREPL(t, fakeai.New(t), nil)
	s.waitPrompt()
	s.keys("C-d")
	if code := s.exitStatus(); code != 0 {
		t.Errorf("Ctrl-D: status %d, want 0", code)
	}
}

func TestREPLStreamsText(t *testing.T) {
	t.Parallel()
	// 8 runes a chunk, 400 ms apart: the first shows long before the last.
	srv := fakeai.New(t, fakeai.Reply{Content: "alpha bravo charlie delta echo foxtrot", ChunkDelay: 400 * time.Millisecond})
	s := readyREPL(t, srv, nil)
	s.typeLine("spell it")
	scr := s.waitFor("alpha br")
	if strings.Contains(scr, "foxtrot") {
		t.Errorf("the whole answer arrived at once; want it streamed:\n%s", scr)
	}
	s.waitFor("alpha bravo charlie delta echo foxtrot")
	scr = s.waitPrompt()
	if !regexp.MustCompile(`· 1 step · \S+ in / \S+ out · \d+\.\ds`).MatchString(scr) {
		t.Errorf("no turn summary:\n%s", scr)
	}
}

func TestREPLToolLinesReplaceToolCalls(t *testing.T) {
	t.Parallel()
	call := fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": "notes.txt"}})
	srv := fakeai.New(t,
		fakeai.Reply{Content: "I will read it.\n" + call + "\n", ChunkDelay: 5 * time.Millisecond},
		fakeai.Reply{Content: "The notes say hello."},
	)
	s := startREPL(t, srv, nil)
	if err := os.WriteFile(filepath.Join(s.work, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitPrompt()
	scr := s.exchange("what do the notes say?", "The notes say hello.")
	screenHas(t, scr, "I will read it.", "▸ open notes.txt", "✓ opened file_1", "· 2 steps")
	for _, bad := range []string{"tool_call", "window_id", "{"} {
		if strings.Contains(scr, bad) {
			t.Errorf("screen shows raw %q:\n%s", bad, scr)
		}
	}
}

func TestREPLResetForgetsTheConversation(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "noted"}, fakeai.Reply{Content: "what word?"})
	s := readyREPL(t, srv, nil)
	s.exchange("remember the word pineapple", "noted")
	s.exchange("/reset", "conversation cleared")
	s.typeLine("which word?")
	s.waitFor("what word?")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if !hasMessage(reqs[1], "user", "which word?") {
		t.Errorf("second request lacks the question: %+v", reqs[1].Messages)
	}
	if mentions(reqs[1], "pineapple") || mentions(reqs[1], "noted") {
		t.Errorf("after /reset the request still carries the earlier conversation: %+v", reqs[1].Messages)
	}
}

func TestREPLCtrlCCancelsTheTurn(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Hang: true}, fakeai.Reply{Content: "back again"})
	s := readyREPL(t, srv, nil)
	s.typeLine("take forever")
	srv.WaitRequests(1, waitLimit)
	s.waitFor("thinking")

	s.cancelWithCtrlC()

	// The history stays consistent: the next request has the question and
	// the interruption, and the conversation goes on.
	s.typeLine("are you there?")
	s.waitFor("back again")
	reqs := srv.WaitRequests(2, waitLimit)
	if !hasMessage(reqs[1], "user", "take forever") || !hasMessage(reqs[1], "assistant", "[interrupted by the user]") {
		t.Errorf("second request lacks the interrupted turn: %+v", reqs[1].Messages)
	}

	// Ctrl-C at an empty prompt warns; a second one exits.
	s.waitPrompt()
	s.keys("C-c")
	s.waitFor("press Ctrl-C again to exit")
	s.keys("C-c")
	if code := s.exitStatus(); code != 0 {
		t.Errorf("double Ctrl-C: status %d, want 0", code)
	}
}

// approvalReplies open a file outside the working directory and write it:
// the file app asks the person first.
func approvalReplies(target string) []fakeai.Reply {
	return []fakeai.Reply{
		{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": target}},
			fakeai.Call{Window: "file_1", Action: "write", Params: map[string]any{"content": "written by aci\n"}},
		)},
		{Content: "finished"},
	}
}

// askedToWrite starts a REPL whose model writes a file outside the
// workspace (approvalReplies) and asks it to: the question is on screen.
func askedToWrite(t *testing.T) (s *pane, srv *fakeai.Server, target string) {
	t.Helper()
	target = filepath.Join(t.TempDir(), "out.txt")
	srv = fakeai.New(t, approvalReplies(target)...)
	s = startREPL(t, srv, nil)
	s.waitPrompt()
	s.typeLine("write the file")
	s.waitFor("allow? ›")
	return s, srv, target
}

func TestREPLApprovalDenied(t *testing.T) {
	t.Parallel()
	s, srv, target := askedToWrite(t)
	scr := s.waitFor("a always (this exact action, this session) · p always for this project, then Enter · other text denies and tells the model why")
	// The write's diff is shown before the question.
	for _, want := range []string{"write " + target, "writes outside the workspace", "+written by aci"} {
		if !strings.Contains(scr, want) {
			t.Errorf("approval prompt lacks %q:\n%s", want, scr)
		}
	}
	// Text other than y, n or a, with Enter, is a denial with a message.
	scr = s.exchange("keep out of that folder", "finished")
	if !strings.Contains(scr, "⊘ denied") {
		t.Errorf("no denial line:\n%s", scr)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the denied write happened: stat %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !mentions(reqs[1], `status="denied"`) || !mentions(reqs[1], "keep out of that folder") {
		t.Errorf("the model was not told of the denial and the message: %+v", reqs[len(reqs)-1].Messages)
	}
}

// y at the question writes the file (and /exit still ends the session at
// once); n denies it.
func TestREPLApprovalAllowedOrNot(t *testing.T) {
	for _, tc := range []struct{ answer, said string }{{"y", "✓ allowed"}, {"n", "⊘ denied"}} {
		t.Run(tc.answer, func(t *testing.T) {
			t.Parallel()
			s, _, target := askedToWrite(t)
			s.typeLine(tc.answer)
			s.waitFor(tc.said)
			s.waitFor("finished")
			s.waitPrompt()
			s.exit()
			data, err := os.ReadFile(target)
			if allowed := tc.answer == "y"; allowed && (err != nil || string(data) != "written by aci\n") {
				t.Errorf("approved write: %q, %v", data, err)
			} else if !allowed && !os.IsNotExist(err) {
				t.Errorf("the denied write happened: %v", err)
			}
		})
	}
}

func TestREPLYesApprovesWithANote(t *testing.T) {
	t.Parallel()
	target := filepath.Join(t.TempDir(), "out.txt")
	srv := fakeai.New(t, approvalReplies(target)...)
	s := startREPL(t, srv, nil, "--yes")
	s.waitFor("--yes: dangerous commands run without asking")
	s.waitPrompt()
	scr := s.exchange("write the file", "finished")
	if !strings.Contains(scr, "approved by --yes: write "+target) {
		t.Errorf("no --yes note:\n%s", scr)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("--yes write: %v", err)
	}
}

var escapeCode = regexp.MustCompile("\x1b\\[")

func TestREPLNoColor(t *testing.T) {
	t.Parallel()
	call := fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": "x.txt"}})
	for _, noColor := range []bool{false, true} {
		srv := fakeai.New(t, fakeai.Reply{Content: "looking\n" + call}, fakeai.Reply{Content: "done looking"})
		var env []string
		if noColor {
			env = []string{"NO_COLOR=1"}
		}
		s := readyREPL(t, srv, env)
		s.exchange("look", "done looking")
		scr := s.screenEscapes()
		if got := escapeCode.MatchString(scr); got == noColor {
			t.Errorf("NO_COLOR=%v: escape codes on screen = %v:\n%q", noColor, got, scr)
		}
	}
}

func TestREPLMultiLineInputAndHistory(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "one"}, fakeai.Reply{Content: "two"}, fakeai.Reply{Content: "three"})
	s := readyREPL(t, srv, nil)

	// A trailing backslash continues the message.
	s.typeLine(`first line \`)
	s.waitUntil("the continuation prompt", func(scr string) bool { return lastLine(scr) == "…" })
	s.exchange("second line", "one")

	// A bracketed paste of many lines is one message.
	s.tmux("set-buffer", "-b", "p", "alpha\nbeta\ngamma\n")
	s.tmux("paste-buffer", "-p", "-d", "-b", "p", "-t", "aci")
	s.waitFor("[pasted text #1 +3 lines]")
	s.keys("Enter")
	s.waitFor("two")
	s.waitPrompt()

	// The same message twice in a row is one history entry.
	s.exchange("again", "three")
	s.typeLine("/usage")
	s.waitFor("before compression")

	reqs := srv.Requests()
	if !hasMessage(reqs[0], "user", "first line \nsecond line") {
		t.Errorf("continued lines: %+v", reqs[0].Messages)
	}
	if !hasMessage(reqs[1], "user", "alpha\nbeta\ngamma") {
		t.Errorf("paste: %+v", reqs[1].Messages)
	}

	s.typeLine("/usage")
	// Ctrl-D only once that line was read: keys that arrive together read
	// as a paste.
	s.waitUntil("the second /usage", func(scr string) bool { return strings.Count(scr, "before compression") >= 2 })
	s.waitPrompt()
	s.keys("C-d")
	s.exitStatus()
	paths, _ := filepath.Glob(filepath.Join(s.state, "aci", "histories", filepath.Base(s.work)+"-*"))
	if len(paths) != 1 {
		t.Fatalf("history files of this project: %v", paths)
	}
	path := paths[0]
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("history mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	want := "first line ␤second line\nalpha␤beta␤gamma\nagain\n/usage\n"
	if string(data) != want {
		t.Errorf("history file:\n%q\nwant\n%q", data, want)
	}
}

// SIGTERM in the middle of a turn ends aci with the terminal as it was
// found: echo on, canonical mode (stty shows it after aci exits).
func TestREPLRestoresTheTerminalOnSIGTERM(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs /proc to find aci's pid")
	}
	srv := fakeai.New(t, fakeai.Reply{Content: "first"}, fakeai.Reply{Hang: true})
	s := startPane(t, srv, nil, func(bin string) []string {
		return []string{"sh", "-c", bin + `; echo "aci exited $?"; stty -a; exec sleep 600`}
	})
	s.waitPrompt()
	s.exchange("hello", "first")
	s.typeLine("hang")
	srv.WaitRequests(2, waitLimit)

	shell := strings.TrimSpace(s.tmux("display-message", "-p", "-t", "aci", "#{pane_pid}"))
	children, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
	if err != nil || len(strings.Fields(string(children))) != 1 {
		t.Fatalf("aci's pid: %q, %v", children, err)
	}
	pid, _ := strconv.Atoi(strings.Fields(string(children))[0])
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.waitFor("aci exited 143")
	scr := s.waitUntil("stty's local flags", func(scr string) bool { return strings.Contains(scr, "icanon") })
	for _, flag := range []string{"echo", "icanon", "isig"} {
		if !regexp.MustCompile(`(^|\s)` + flag + `(\s|$)`).MatchString(scr) {
			t.Errorf("terminal not restored: stty lacks %q:\n%s", flag, scr)
		}
	}
}

// Ctrl-C while a command runs kills it (its whole process group) and gives
// the prompt back at once.
func TestREPLCtrlCKillsTheRunningCommand(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}},
			fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "sleep 60.71 & echo $! > sleeper.pid; wait"}},
		)},
		fakeai.Reply{Content: "still here"},
	)
	s := readyREPL(t, srv, nil)
	s.typeLine("run it")
	s.waitFor("▸ run sleep 60.71 & echo $! > sleeper.pid; wait")
	pidFile := filepath.Join(s.work, "sleeper.pid")
	var pid int
	s.waitUntil("the command to start", func(string) bool {
		data, err := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && pid > 0
	})
	s.waitFor("running")

	s.cancelWithCtrlC()
	// The pid the command wrote is that of its own pid namespace when it
	// runs contained: look for the process by its command line.
	s.waitUntil("the command's process group to end", func(string) bool {
		return exec.Command("pgrep", "-f", "sleep 60.71").Run() != nil
	})

	s.typeLine("are you there?")
	s.waitFor("still here")
	if reqs := srv.Requests(); len(reqs) != 2 || !mentions(reqs[1], "[interrupted by the user]") {
		t.Errorf("the interrupted command is not in the history: %d requests", len(reqs))
	}
}

func TestREPLCompactAndUsage(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "noted", PromptTokens: 5000}, fakeai.Reply{Content: "## Goal\nSUMMARY"}, fakeai.Reply{Content: "still here"})
	s := readyREPL(t, srv, nil)
	s.exchange("remember the word pineapple", "noted")
	s.exchange("/compact the word", "compressed 5000 → ")
	s.exchange("/usage", "completion tokens")
	s.typeLine("and now?")
	s.waitFor("still here")
	reqs := srv.Requests()
	if !mentions(reqs[1], "focus on: the word") {
		t.Errorf("the focus was not passed to the summary request")
	}
	if !strings.Contains(reqs[2].Messages[0].Content, "SUMMARY") || mentions(reqs[2], "noted") {
		t.Errorf("after /compact the request should carry the summary, not the old messages: %+v", reqs[2].Messages)
	}
}

func TestREPLResumeContinuesTheSession(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "noted the kiwi"}, fakeai.Reply{Content: "it was kiwi"})
	first := readyREPL(t, srv, nil)
	first.exchange("remember the word kiwi", "noted the kiwi")
	first.exit()
	second := startPaneIn(t, srv, first.work, first.home, nil, func(bin string) []string { return []string{bin, "--resume"} })
	second.waitFor("resumed")
	second.waitPrompt()
	second.typeLine("which word?")
	second.waitFor("it was kiwi")
	if req := srv.Requests()[1]; !hasMessage(req, "user", "remember the word kiwi") || !hasMessage(req, "assistant", "noted the kiwi") {
		t.Errorf("the resumed request lacks the earlier turn: %+v", req.Messages)
	}
}

// cancelWithCtrlC presses Ctrl-C during a turn and checks that the prompt
// comes back within a second, the turn marked as interrupted.
func (s *pane) cancelWithCtrlC() {
	s.t.Helper()
	sent := time.Now()
	s.keys("C-c")
	s.waitPrompt()
	if d := time.Since(sent); d > time.Second {
		s.t.Errorf("the prompt came back %v after Ctrl-C; want under a second", d)
	}
	s.waitFor("⊘ interrupted")
}
