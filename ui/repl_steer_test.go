//go:build unix

package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A line typed while a command runs reaches the model's next request, as
// the person's words after the command's results; the REPL says where it
// went, and a line typed after the last request starts the next turn.
func TestREPLTypingDuringATurnSteersIt(t *testing.T) {
	t.Parallel()
	srv := gateModel(t, "noted the steer")
	s := readyREPL(t, srv, nil)
	s.typeLine("run the gate")
	srv.WaitRequests(2, waitLimit)
	s.waitFor("running")
	s.tmux("send-keys", "-t", "aci", "-l", "also say hi")
	s.waitFor("› also say hi") // drawn beside the spinner while typed
	s.keys("Enter")
	s.waitFor("↳ added to the running turn")
	if err := os.WriteFile(filepath.Join(s.work, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitFor("noted the steer")
	s.waitPrompt()
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[2].Messages
	last, before := msgs[len(msgs)-1], msgs[len(msgs)-2]
	if last.Role != "user" || !strings.Contains(last.Content, "also say hi") || !strings.Contains(before.Content, "gate-passed") {
		t.Fatalf("the third request ends %q / %q", before.Content, last.Content)
	}
	// The turn took it: nothing is left for another turn.
	if n := strings.Count(s.screen(), "also say hi"); n != 1 {
		t.Errorf("the steered line shows %d times:\n%s", n, s.screen())
	}
}

// A line typed while the turn's last request is answered starts the next
// turn once it ends.
func TestREPLLineAfterTheLastRequestStartsTheNextTurn(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t,
		fakeai.Reply{Content: "first answer", Delay: 1500e6},
		fakeai.Reply{Content: "second answer"},
	)
	s := readyREPL(t, srv, nil)
	s.typeLine("one")
	srv.WaitRequests(1, waitLimit)
	s.waitFor("thinking")
	s.typeLine("two")
	s.waitFor("↳ added to the running turn")
	s.waitFor("second answer")
	reqs := srv.WaitRequests(2, waitLimit)
	if !hasMessage(reqs[1], "user", "two") || !hasMessage(reqs[1], "assistant", "first answer") {
		t.Errorf("the second turn's request: %+v", reqs[1].Messages)
	}
	s.waitFor("it starts the next turn")
}
