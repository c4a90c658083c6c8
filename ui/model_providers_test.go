package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/internal/fakeai"
)

// TestModelCommandProviders: /model lists each provider's models after the
// default endpoint's, says which provider lacks its key, and switches
// across providers: the next request goes to the provider's server.
func TestModelCommandProviders(t *testing.T) {
	def, other := fakeai.New(t), fakeai.New(t, fakeai.Reply{Content: "hi from other"})
	def.SetInfo(fakeai.Info{Models: []string{"gpt-5-mini"}})
	t.Setenv("ACI_TEST_OTHER_KEY", "sk-other-0001")
	t.Setenv("ACI_TEST_MISSING_KEY", "")
	client := agent.NewOpenAIClient(agent.ClientConfig{BaseURL: def.URL, APIKey: "sk-def-0002", Model: "gpt-5-mini", Providers: []agent.Provider{
		{Name: "other", BaseURL: other.URL, APIKeyEnv: "ACI_TEST_OTHER_KEY", Models: []string{"llama-3"}},
		{Name: "paid", BaseURL: "https://paid.example/v1", APIKeyEnv: "ACI_TEST_MISSING_KEY"},
	}})
	var b strings.Builder
	r := &REPL{client: client, cfg: REPLConfig{Model: "gpt-5-mini"}, out: newRenderer(&b, false, false)}
	steps := []struct{ arg, want string }{
		{"", "* gpt-5-mini\nother (" + other.URL + ")\n  other/llama-3\npaid (https://paid.example/v1)\nerror: provider paid: its key variable ACI_TEST_MISSING_KEY is not set\n/model NAME switches to NAME\n"},
		{"paid/big", "error: provider paid: its key variable ACI_TEST_MISSING_KEY is not set\n"},
		{"other/nope", `error: no model "other/nope" on provider other; /model lists them` + "\n"},
		{"other/llama-3", "model: other/llama-3\n"},
		{"", "  gpt-5-mini\nother (" + other.URL + ")\n* other/llama-3\npaid (https://paid.example/v1)\nerror: provider paid: its key variable ACI_TEST_MISSING_KEY is not set\n/model NAME switches to NAME\n"},
	}
	for _, s := range steps {
		b.Reset()
		r.command("model", s.arg)
		if b.String() != s.want {
			t.Errorf("/model %s: got\n%s\nwant\n%s", s.arg, b.String(), s.want)
		}
	}
	if _, err := client.Complete(context.Background(), []agent.Message{{Role: "user", Content: "q"}}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := other.Requests()
	if len(reqs) != 1 || reqs[0].Model != "llama-3" || reqs[0].APIKey() != "sk-other-0001" || len(def.Requests()) != 0 {
		t.Errorf("after the switch: other got %d requests, default %d", len(reqs), len(def.Requests()))
	}
}
