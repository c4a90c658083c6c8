package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/session"
)

// slashREPL is a REPL on a real session of cc's model server, in a
// temporary workspace, writing plain text to b: for the slash commands
// that are the session's operations (session/ops.go).
func slashREPL(t *testing.T, cc session.ClientConfig, b *strings.Builder) *REPL {
	t.Helper()
	f := session.NewFactory(session.Config{Client: cc, Agent: session.AgentConfig{BasePrompt: "You are aci.", MaxSteps: 5}, SessionsDir: t.TempDir()})
	s, err := f.New(context.Background(), session.Options{Workdir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &REPL{sess: s, cfg: REPLConfig{Model: cc.Model}, out: newRenderer(b, false, false)}
}

// slashSteps runs /name with each step's argument and checks what it
// printed.
func slashSteps(t *testing.T, r *REPL, b *strings.Builder, name string, steps []struct{ arg, want string }) {
	t.Helper()
	for _, s := range steps {
		b.Reset()
		if r.command(name, s.arg) {
			t.Fatalf("/%s left the REPL", name)
		}
		if b.String() != s.want {
			t.Errorf("/%s %s: got\n%q\nwant\n%q", name, s.arg, b.String(), s.want)
		}
	}
}

// listedREPL is slashREPL on a model server that lists models, the first
// the session's.
func listedREPL(t *testing.T, b *strings.Builder, models ...string) *REPL {
	srv := fakeai.New(t)
	srv.SetInfo(fakeai.Info{Models: models})
	return slashREPL(t, session.ClientConfig{BaseURL: srv.URL, Model: models[0]}, b)
}

func TestModelCommand(t *testing.T) {
	var b strings.Builder
	r := listedREPL(t, &b, "qwen2.5-coder:7b", "llama3.2")
	slashSteps(t, r, &b, "model", []struct{ arg, want string }{
		{"", "* qwen2.5-coder:7b\n  llama3.2\n/model NAME switches to NAME\n"},
		{"nope", `error: no model "nope" on this server; /model lists them` + "\n"},
		{"llama3.2", "model: llama3.2\n"},
		{"", "  qwen2.5-coder:7b\n* llama3.2\n/model NAME switches to NAME\n"},
	})
	if r.sess.Model() != "llama3.2" || r.cfg.Model != "llama3.2" {
		t.Errorf("model %q / %q", r.sess.Model(), r.cfg.Model)
	}
}

// TestModelCommandProviders: /model lists each provider's models after the
// default endpoint's, says which provider lacks its key, and switches
// across providers: the next turn goes to the provider's server.
func TestModelCommandProviders(t *testing.T) {
	def, other := fakeai.New(t), fakeai.New(t, fakeai.Reply{Content: "hi from other"})
	def.SetInfo(fakeai.Info{Models: []string{"gpt-5-mini"}})
	t.Setenv("ACI_TEST_OTHER_KEY", "sk-other-0001")
	t.Setenv("ACI_TEST_MISSING_KEY", "")
	var b strings.Builder
	r := slashREPL(t, session.ClientConfig{BaseURL: def.URL, APIKey: "sk-def-0002", Model: "gpt-5-mini", Providers: []session.Provider{
		{Name: "other", BaseURL: other.URL, APIKeyEnv: "ACI_TEST_OTHER_KEY", Models: []string{"llama-3"}},
		{Name: "paid", BaseURL: "https://paid.example/v1", APIKeyEnv: "ACI_TEST_MISSING_KEY"},
	}}, &b)
	slashSteps(t, r, &b, "model", []struct{ arg, want string }{
		{"", "* gpt-5-mini\nother (" + other.URL + ")\n  other/llama-3\npaid (https://paid.example/v1)\nerror: provider paid: its key variable ACI_TEST_MISSING_KEY is not set\n/model NAME switches to NAME\n"},
		{"paid/big", "error: provider paid: its key variable ACI_TEST_MISSING_KEY is not set\n"},
		{"other/nope", `error: no model "other/nope" on provider other; /model lists them` + "\n"},
		{"other/llama-3", "model: other/llama-3\n"},
		{"", "  gpt-5-mini\nother (" + other.URL + ")\n* other/llama-3\npaid (https://paid.example/v1)\nerror: provider paid: its key variable ACI_TEST_MISSING_KEY is not set\n/model NAME switches to NAME\n"},
	})
	if res, err := r.sess.Ask(context.Background(), "q"); err != nil || res.Outcome != session.Answered {
		t.Fatalf("the turn after the switch: %v %+v", err, res)
	}
	reqs := other.Requests()
	if len(reqs) != 1 || reqs[0].Model != "llama-3" || reqs[0].APIKey() != "sk-other-0001" || len(def.Requests()) != 0 {
		t.Errorf("after the switch: other got %d requests, default %d", len(reqs), len(def.Requests()))
	}
}

func TestEffortCommand(t *testing.T) {
	var b strings.Builder
	r := listedREPL(t, &b, "gpt-5-mini", "gpt-4.1")
	slashSteps(t, r, &b, "effort", []struct{ arg, want string }{
		{"", "reasoning effort: the model's default (/effort low|medium|high|default)\n"},
		{"extreme", "error: reasoning effort \"extreme\": want one of low, medium, high\n"},
		{"high", "reasoning effort: high\n"},
		{"", "reasoning effort: high (/effort low|medium|high|default)\n"},
		{"default", "reasoning effort: the model's default\n"},
	})
	if err := r.sess.SetModel(context.Background(), "gpt-4.1"); err != nil {
		t.Fatal(err)
	}
	slashSteps(t, r, &b, "effort", []struct{ arg, want string }{
		{"low", "reasoning effort: low (not sent to gpt-4.1, which takes none)\n"},
	})
	if e, _ := r.sess.Effort(""); e.Level != "low" {
		t.Errorf("effort %q", e.Level)
	}
}

func TestUsageMoney(t *testing.T) {
	var b strings.Builder
	r := slashREPL(t, session.ClientConfig{BaseURL: "https://api.example/v1", Model: "my-model"}, &b)
	if got := r.usageMoney(session.Cost{USD: 0.25, SavedUSD: 0.5}); len(got) != 1 || got[0] != "  cost               $0.25 this session, the prompt cache saved $0.50" {
		t.Errorf("known: %q", got)
	}
	got := strings.Join(r.usageMoney(session.Cost{USD: 0.25, Unpriced: 3}), "\n")
	for _, want := range []string{"unknown (3 requests without a price; the others $0.25)", `no price known for my-model`, `"prices": {"my-model":`} {
		if !strings.Contains(got, want) {
			t.Errorf("unknown: %q lacks %q", got, want)
		}
	}
}

// TestREPLBindsEveryOperation: each operation the session's table offers
// the REPL is a slash command here, described as the table says.
func TestREPLBindsEveryOperation(t *testing.T) {
	for _, o := range session.OpsOf(func(o session.Op) bool { return o.REPL }) {
		c := findCommand(o.Name)
		if c == nil {
			t.Errorf("/%s is in session.Ops for the REPL but not a command", o.Name)
			continue
		}
		if c.args != o.Args || c.help != o.Help {
			t.Errorf("/%s is described apart from session.Ops: %q %q", o.Name, c.args, c.help)
		}
	}
}
