package agent

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// TestProvidersTwoServers: the default endpoint and a provider each get
// their own requests, with their own key and never the other's; a switch
// mid-session moves the next request; a name whose first part is no
// provider stays on the default endpoint; a provider without its key
// variable set fails with an error naming it and sends nothing.
func TestProvidersTwoServers(t *testing.T) {
	def, other, local := fakeai.New(t), fakeai.New(t), fakeai.New(t)
	def.Handle(func(fakeai.Request) fakeai.Reply { return fakeai.Reply{Content: "from the default endpoint"} })
	other.Handle(func(fakeai.Request) fakeai.Reply { return fakeai.Reply{Content: "from the other"} })
	local.Handle(func(fakeai.Request) fakeai.Reply { return fakeai.Reply{Content: "from the local one"} })
	t.Setenv("OPENAI_API_KEY", "sk-default-from-env-0001") // the SDK reads it: it must not reach a provider
	t.Setenv("ACI_TEST_OTHER_KEY", "sk-other-key-0002")
	t.Setenv("ACI_TEST_UNSET_KEY", "")
	c := NewOpenAIClient(ClientConfig{BaseURL: def.URL, APIKey: "sk-default-key-0003", Model: "gpt-5-mini", Stream: true, Providers: []Provider{
		{Name: "other", BaseURL: other.URL, APIKeyEnv: "ACI_TEST_OTHER_KEY", Models: []string{"llama-3", "qwen3"}, Headers: map[string]string{"X-Title": "aci"}},
		{Name: "local", BaseURL: local.URL},
		{Name: "nokey", BaseURL: "https://nokey.example/v1", APIKeyEnv: "ACI_TEST_UNSET_KEY"},
	}})
	ask := func() (string, error) {
		r, err := c.Complete(context.Background(), []Message{{Role: "user", Content: "q"}}, nil)
		return r.Content, err
	}
	steps := []struct{ model, want string }{
		{"gpt-5-mini", "from the default endpoint"},
		{"other/llama-3", "from the other"},
		{"anthropic/claude-sonnet-4.5", "from the default endpoint"},
		{"local/qwen3:8b", "from the local one"},
		{"other/qwen3", "from the other"},
	}
	for _, s := range steps {
		c.SetModel(s.model)
		if got, err := ask(); err != nil || got != s.want {
			t.Fatalf("%s: %q, %v; want %q", s.model, got, err, s.want)
		}
	}
	check := func(srv *fakeai.Server, key string, models ...string) {
		t.Helper()
		var got []string
		for _, r := range srv.Requests() {
			got = append(got, r.Model)
			if r.APIKey() != key {
				t.Errorf("%s got key %q, want %q", r.Model, r.APIKey(), key)
			}
		}
		if !reflect.DeepEqual(got, models) {
			t.Errorf("models %v, want %v", got, models)
		}
	}
	check(def, "sk-default-key-0003", "gpt-5-mini", "anthropic/claude-sonnet-4.5")
	check(other, "sk-other-key-0002", "llama-3", "qwen3")
	check(local, "", "qwen3:8b")
	for _, r := range other.Requests() {
		if r.Header.Get("X-Title") != "aci" {
			t.Errorf("the provider's header is missing: %v", r.Header.Get("X-Title"))
		}
	}
	if h := local.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("a keyless provider was sent Authorization %q", h)
	}

	c.SetModel("nokey/m")
	var nokey *ErrNoKey
	if err := c.CheckModel("nokey/m"); !errors.As(err, &nokey) || !strings.Contains(err.Error(), "provider nokey: its key variable ACI_TEST_UNSET_KEY is not set") {
		t.Errorf("CheckModel = %v", err)
	}
	if _, err := ask(); !errors.As(err, &nokey) {
		t.Errorf("a request to a provider without its key: %v", err)
	}
	if err := c.CheckModel("gpt-5-mini"); err != nil {
		t.Errorf("the default endpoint: %v", err)
	}
	if n := len(def.Requests()) + len(other.Requests()) + len(local.Requests()); n != 5 {
		t.Errorf("%d requests, want 5", n)
	}
	models, err := c.ProviderModels(context.Background(), "other")
	if err != nil || !reflect.DeepEqual(models, []string{"other/llama-3", "other/qwen3"}) {
		t.Errorf("ProviderModels = %v, %v", models, err)
	}
	local.SetInfo(fakeai.Info{Models: []string{"qwen3:8b"}})
	if models, err := c.ProviderModels(context.Background(), "local"); err != nil || !reflect.DeepEqual(models, []string{"local/qwen3:8b"}) {
		t.Errorf("ProviderModels(local) = %v, %v", models, err)
	}
}

// A provider's refused key and unreachable server are described with its
// own variable and address.
func TestProviderErrorsDescribed(t *testing.T) {
	bad := fakeai.New(t, fakeai.Reply{Status: 401, ErrorMessage: "Incorrect API key provided", ErrorCode: "invalid_api_key"})
	t.Setenv("ACI_TEST_BAD_KEY", "sk-bad-0001")
	c := NewOpenAIClient(ClientConfig{BaseURL: "https://api.example/v1", APIKey: "k", Model: "bad/m", Providers: []Provider{
		{Name: "bad", BaseURL: bad.URL, APIKeyEnv: "ACI_TEST_BAD_KEY"}}})
	_, err := c.Complete(context.Background(), []Message{{Role: "user", Content: "q"}}, nil)
	if got := c.Describe(err); !strings.Contains(got, "check ACI_TEST_BAD_KEY") || strings.Contains(got, "OPENAI_API_KEY") {
		t.Errorf("Describe = %q", got)
	}
	bad.Close()
	_, err = c.Complete(context.Background(), []Message{{Role: "user", Content: "q"}}, nil)
	if got := c.Describe(err); !strings.Contains(got, strings.TrimPrefix(strings.TrimSuffix(bad.URL, "/v1"), "http://")) {
		t.Errorf("Describe = %q, want the provider's address", got)
	}
}
