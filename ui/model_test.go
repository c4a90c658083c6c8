package ui

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/session"
)

func TestReasoningAndNoticesAreShownApart(t *testing.T) {
	var b strings.Builder
	r := newRenderer(&b, false, false)
	r.beginTurn()
	for _, ev := range []session.Event{
		session.Text{Text: "\nweighing ", Reasoning: true},
		session.Text{Text: "it up", Reasoning: true},
		session.Text{Text: "The answer."},
		session.Notice{Kind: "hint", Text: "asking the model to go on"},
	} {
		r.event(ev)
	}
	r.endTurn()
	if want := "weighing it up\nThe answer.\n· asking the model to go on\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestModelCommand(t *testing.T) {
	srv := fakeai.New(t)
	srv.SetInfo(fakeai.Info{Models: []string{"qwen2.5-coder:7b", "llama3.2"}})
	client := agent.NewOpenAIClient(agent.ClientConfig{BaseURL: srv.URL, Model: "qwen2.5-coder:7b"})
	var b strings.Builder
	r := &REPL{client: client, cfg: REPLConfig{Model: "qwen2.5-coder:7b"}, out: newRenderer(&b, false, false)}
	for _, tc := range []struct{ arg, want string }{
		{"", "* qwen2.5-coder:7b\n  llama3.2\n/model NAME switches to NAME\n"},
		{"nope", `error: no model "nope" on this server; /model lists them` + "\n"},
		{"llama3.2", "model: llama3.2\n"},
		{"", "  qwen2.5-coder:7b\n* llama3.2\n/model NAME switches to NAME\n"},
	} {
		b.Reset()
		if r.command("model", tc.arg) {
			t.Fatal("/model left the REPL")
		}
		if b.String() != tc.want {
			t.Errorf("/model %s: got %q, want %q", tc.arg, b.String(), tc.want)
		}
	}
	if client.Model() != "llama3.2" || r.cfg.Model != "llama3.2" {
		t.Errorf("model %q / %q", client.Model(), r.cfg.Model)
	}
}
