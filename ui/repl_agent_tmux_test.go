//go:build unix

package ui

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// An agent window's child's actions show live, indented under the agent,
// while the parent's turn runs; /show agent_1 prints the window: the
// child's actions and, once it has one, its answer, after the turn.
func TestREPLShowsAnAgent(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t)
	answered := make(chan struct{})
	var once sync.Once
	srv.Handle(func(req fakeai.Request) fakeai.Reply {
		step, child := req.Step(), req.ChildOf("look around")
		switch {
		case child && step == 1:
			return fakeai.Reply{Content: fakeai.ToolCall(open("bash", ""))}
		case child:
			once.Do(func() { close(answered) })
			return fakeai.Reply{Content: "The child says kiwi."}
		case step == 1:
			return fakeai.Reply{Content: fakeai.ToolCall(open("agent", "look around"))}
		}
		// The parent answers once the child has: /show then finds it done.
		select {
		case <-answered:
		case <-time.After(10 * time.Second):
		}
		return fakeai.Reply{Content: "A helper is on it.", Delay: 300 * time.Millisecond}
	})
	s := readyREPL(t, srv, nil)
	s.typeLine("send a helper")
	scr := s.waitFor("A helper is on it.")
	// The child's action showed live, under the agent, before the answer.
	if step := strings.Index(scr, "⎿ agent_1 · open a shell"); step < 0 || step > strings.Index(scr, "A helper is on it.") {
		t.Errorf("the agent's action is not shown live under it:\n%s", scr)
	}
	s.waitPrompt()
	s.typeLine("/show agent_1")
	s.waitFor("agent_1 · agent · look around")
	scr = s.waitFor("The child says kiwi.")
	if !strings.Contains(scr, "launcher.open") {
		t.Errorf("the agent window lacks its actions:\n%s", scr)
	}
}
