package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A message sent while a batch runs reaches the model in the next
// request, after the batch's results, as a user message appended to what
// was sent before; the transcript files it under its turn with the
// turn's actions and their output.
func TestSteerJoinsTheRunningTurn(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}})},
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "echo steered-output"}})},
		fakeai.Reply{Content: "done"},
	)
	a, dir, events := newAgent(t, srv, true)
	tr, err := newTestLog(t.TempDir(), dir, "m", "")
	if err != nil {
		t.Fatal(err)
	}
	a.SetTranscript(tr.File)
	// The source is asked before each request: the messages arrive while
	// the first reply's batch runs, so the second request has them.
	asked := 0
	a.SetSteer(func() []string {
		asked++
		if asked == 2 {
			return []string{"also print the date", "and be brief"}
		}
		return nil
	})
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	var at int
	for i, r := range reqs {
		last := r.Messages[len(r.Messages)-1]
		if strings.Contains(last.Content, "and be brief") {
			at = i + 1
			prev := r.Messages[len(r.Messages)-2]
			if !strings.Contains(prev.Content, "also print the date") || last.Role != "user" {
				t.Fatalf("request %d ends %q, %q", at, prev.Content, last.Content)
			}
			if !strings.Contains(r.Messages[len(r.Messages)-3].Content, "<tool_results>") {
				t.Errorf("the steered messages do not follow the batch's results: %q", r.Messages[len(r.Messages)-3].Content)
			}
			break
		}
	}
	if at < 2 {
		t.Fatalf("no request after the first carries the steered messages (%d requests)", len(reqs))
	}
	var steps []int
	for _, e := range *events {
		if e.Kind == EventSteer {
			steps = append(steps, e.Step)
		}
	}
	if at != 2 || len(steps) != 2 || steps[0] != 2 || steps[1] != 2 {
		t.Errorf("steer events at steps %v, want two at %d", steps, at)
	}
	tr.Close()
	s, _, err := replay(tr.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Asked) != 1 || s.Questions != 1 {
		t.Fatalf("replayed %d turns, %d questions: a steered message is not a question", len(s.Asked), s.Questions)
	}
	var steers []string
	for _, r := range s.Legacy {
		if text, ok := SteerOf(r.Content); ok && r.Role == "user" {
			steers = append(steers, text)
		}
	}
	if strings.Join(steers, "|") != "also print the date|and be brief" {
		t.Errorf("steers %q", steers)
	}
}

// After a reset a turn count is of the conversation since: the replay
// (which --sessions, --resume and the server read) counts the questions
// after the last reset, as the REPL and the page do.
func TestTurnsCountSinceTheLastReset(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "one"}, fakeai.Reply{Content: "two"}, fakeai.Reply{Content: "three"})
	a, dir, _ := newAgent(t, srv, false)
	tr, err := newTestLog(t.TempDir(), dir, "m", "")
	if err != nil {
		t.Fatal(err)
	}
	a.SetTranscript(tr.File)
	for _, q := range []string{"first", "second"} {
		if _, err := a.Run(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	a.Reset()
	if _, err := a.Run(context.Background(), "third"); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	s, _, err := replay(tr.Path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Questions != 1 || len(s.Asked) != 1 || s.Asked[0].Text != "third" || a.Conversation().Turns() != 1 {
		t.Errorf("after a reset: %d questions, asked %+v, the conversation counts %d", s.Questions, s.Asked, a.Conversation().Turns())
	}
}
