//go:build unix

package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// gateCommand waits in the workspace until the test lets it go.
const gateCommand = "while [ ! -f go ]; do sleep 0.05; done; echo gate-passed"

// gateModel is a model that opens a shell, runs gateCommand and answers
// answer once the gate is let go.
func gateModel(t *testing.T, answer string) *fakeai.Server {
	return fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}})},
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": gateCommand}})},
		fakeai.Reply{Content: answer},
	)
}

// steerThroughGate types text while the gate command runs, checks that
// the model's next request holds exactly it, and lets the turn end.
func (s *pane) steerThroughGate(text string, reqs int) {
	s.t.Helper()
	s.srv.WaitRequests(reqs, waitLimit)
	s.waitFor("▸ run " + gateCommand)
	s.tmux("send-keys", "-t", "aci", "-l", text)
	s.waitFor("› " + text)
	s.keys("Enter")
	s.waitFor("↳ added to the running turn")
	if err := os.WriteFile(filepath.Join(s.work, "go"), nil, 0o644); err != nil {
		s.t.Fatal(err)
	}
	got := s.srv.WaitRequests(reqs+1, waitLimit)[reqs]
	last := got.Messages[len(got.Messages)-1]
	// The steer comes under the line that says when it was written.
	head, body, _ := strings.Cut(last.Content, "\n")
	if last.Role != "user" || !strings.Contains(head, "while you were working") || body != text {
		s.t.Errorf("the request after the steer ends %s %q, want exactly %q", last.Role, last.Content, text)
	}
	os.Remove(filepath.Join(s.work, "go"))
}

// exitsOnCtrlD presses Ctrl-D at the empty prompt: aci exits, status 0.
func (s *pane) exitsOnCtrlD() {
	s.t.Helper()
	s.waitPrompt()
	s.keys("C-d")
	if code := s.exitStatus(); code != 0 {
		s.t.Errorf("Ctrl-D at the empty prompt: status %d\n%s", code, s.screen())
	}
}

// Typing during a turn works the same after any number of questions
// answered in the terminal, served or not: the model reads exactly what
// was typed, no key is lost to another reader, nothing stays hidden, and
// Ctrl-D still exits at the empty prompt.
func TestREPLSteerAfterApprovals(t *testing.T) {
	for _, tc := range []struct {
		approvals int
		serve     bool
	}{{1, false}, {3, false}, {2, true}} {
		t.Run(fmt.Sprintf("%d approvals serve %v", tc.approvals, tc.serve), func(t *testing.T) {
			t.Parallel()
			outside := t.TempDir()
			var calls []fakeai.Call
			for i := 1; i <= tc.approvals; i++ {
				target := filepath.Join(outside, fmt.Sprintf("out%d.txt", i))
				calls = append(calls,
					fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": target}},
					fakeai.Call{Window: fmt.Sprintf("file_%d", i), Action: "write", Params: map[string]any{"content": "x\n"}})
			}
			srv := fakeai.New(t,
				fakeai.Reply{Content: fakeai.ToolCall(calls...)},
				fakeai.Reply{Content: fakeai.ToolCall(
					fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}},
					fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": gateCommand}})},
				fakeai.Reply{Content: "noted the steer"},
			)
			s := readyREPL(t, srv, nil)
			if tc.serve {
				s.exchange("/serve 127.0.0.1:0", "web page: ")
			}
			s.typeLine("write them")
			for i := 1; i <= tc.approvals; i++ {
				s.waitUntil(fmt.Sprintf("question %d", i), func(scr string) bool { return strings.Count(scr, "allow? ›") == i })
				s.typeLine("y")
				s.waitUntil(fmt.Sprintf("answer %d", i), func(scr string) bool { return strings.Count(scr, "✓ allowed") == i })
			}
			s.steerThroughGate("steer b", 2)
			s.waitFor("noted the steer")
			for i := 1; i <= tc.approvals; i++ {
				if _, err := os.Stat(filepath.Join(outside, fmt.Sprintf("out%d.txt", i))); err != nil {
					t.Errorf("allowed write %d: %v", i, err)
				}
			}
			s.exitsOnCtrlD()
		})
	}
}

// The same after Ctrl-C at a question, a question answered and Ctrl-C
// during a command.
func TestREPLSteerAfterCtrlC(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	one, two := filepath.Join(outside, "one.txt"), filepath.Join(outside, "two.txt")
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": one}},
			fakeai.Call{Window: "file_1", Action: "write", Params: map[string]any{"content": "x\n"}})},
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": two}},
			fakeai.Call{Window: "file_2", Action: "write", Params: map[string]any{"content": "x\n"}},
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}},
			fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "sleep 30"}})},
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": gateCommand}})},
		fakeai.Reply{Content: "noted the steer"},
	)
	s := readyREPL(t, srv, nil)
	s.typeLine("write one")
	s.waitFor("allow? ›")
	s.keys("C-c")
	s.waitFor("⊘ interrupted")
	s.waitPrompt()
	s.typeLine("write two, then wait")
	s.waitUntil("the second question", func(scr string) bool { return strings.Count(scr, "allow? ›") == 2 })
	s.typeLine("yes")
	s.waitFor("▸ run sleep 30")
	s.keys("C-c")
	s.waitUntil("the second interruption", func(scr string) bool { return strings.Count(scr, "⊘ interrupted") == 2 })
	s.waitPrompt()
	s.typeLine("now the gate")
	s.steerThroughGate("steer after ctrl-c", 3)
	s.waitFor("noted the steer")
	if _, err := os.Stat(one); err == nil {
		t.Errorf("the write asked about when Ctrl-C was pressed happened")
	}
	if _, err := os.Stat(two); err != nil {
		t.Errorf("the allowed write: %v", err)
	}
	s.exitsOnCtrlD()
}
