package serve

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/session"
)

// GET /api/models lists each provider's models after the model server's,
// and says which provider cannot be used; a session created with a
// provider's model sends its requests there, with the provider's key.
func TestModelsProviders(t *testing.T) {
	other := fakeai.New(t, fakeai.Reply{Content: "from the other"})
	t.Setenv("ACI_TEST_OTHER_KEY", "sk-other-key-0004")
	t.Setenv("ACI_TEST_MISSING_KEY", "")
	r := newRig(t, nil, func(sc *sessionConfig, _ *Config) {
		sc.Client.Providers = []session.Provider{
			{Name: "other", BaseURL: other.URL, APIKeyEnv: "ACI_TEST_OTHER_KEY", Models: []string{"llama-3"}},
			{Name: "paid", BaseURL: "https://paid.example/v1", APIKeyEnv: "ACI_TEST_MISSING_KEY"},
		}
	})
	r.ai.SetInfo(fakeai.Info{Models: []string{"test-model"}})
	var got struct {
		Default   string
		Models    []string
		Providers []struct {
			Name   string
			Models []string
			Error  string
		}
	}
	r.must(200, "GET", "/api/models", nil, &got)
	if strings.Join(got.Models, ",") != "test-model,other/llama-3" || len(got.Providers) != 2 ||
		got.Providers[0].Name != "other" || got.Providers[1].Error != "provider paid: its key variable ACI_TEST_MISSING_KEY is not set" {
		t.Errorf("models %+v", got)
	}
	if code, body := r.call("POST", "/api/sessions", map[string]any{"model": "paid/big"}, nil); code != 400 || !strings.Contains(body, "its key variable ACI_TEST_MISSING_KEY is not set") {
		t.Errorf("a session on a provider without its key: %d %s", code, body)
	}
	var created struct{ ID string }
	r.must(201, "POST", "/api/sessions", map[string]any{"model": "other/llama-3"}, &created)
	ev := r.events(created.ID, "")
	r.ask(created.ID, "hello")
	ev.until(idle)
	reqs := other.Requests()
	if len(reqs) != 1 || reqs[0].Model != "llama-3" || reqs[0].APIKey() != "sk-other-key-0004" || len(r.ai.Requests()) != 0 {
		t.Errorf("the provider got %d requests, the default endpoint %d", len(reqs), len(r.ai.Requests()))
	}
}
