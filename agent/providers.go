package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Providers: more OpenAI-compatible endpoints beside the default one
// (OPENAI_BASE_URL), each with its own key variable, named in settings
// (docs/protocol.md §2). A model name "NAME/MODEL" whose NAME is a provider
// goes to that provider as MODEL; any other name, OpenRouter's
// "anthropic/claude-sonnet-4.5" among them, goes to the default endpoint
// as it is. The name is resolved at every request, so /model switches the
// endpoint of the next one, and fallbacks may cross providers.

// Provider is one endpoint of the providers table.
type Provider struct {
	Name      string
	BaseURL   string
	APIKeyEnv string // the variable holding its key; "" for none (a local server)
	Models    []string
	Headers   map[string]string
}

// ErrNoKey is the error of a provider whose key variable is not set.
type ErrNoKey struct{ Provider, Var string }

func (e *ErrNoKey) Error() string {
	return fmt.Sprintf("provider %s: its key variable %s is not set", e.Provider, e.Var)
}

// endpoint is where one model name's requests go.
type endpoint struct {
	provider string // "" for the default endpoint
	baseURL  string
	key      string
	model    string // the name sent
	sdk      *openai.Client
	err      error // the provider cannot be used (its key is missing)
}

// providerSet is a client's providers and their SDK clients, built when
// first used. getenv reads key variables (the environment, .env loaded).
type providerSet struct {
	byName map[string]Provider
	getenv func(string) string

	mu   sync.Mutex
	sdks map[string]*openai.Client
}

// SplitModel reports the provider a model name names, and the model on
// that provider; provider is "" for the default endpoint.
func (c *OpenAIClient) SplitModel(name string) (provider, model string) {
	if p, rest, ok := strings.Cut(name, "/"); ok && rest != "" {
		if _, ok := c.providers.byName[p]; ok {
			return p, rest
		}
	}
	return "", name
}

// endpoint resolves a model name.
func (c *OpenAIClient) endpoint(name string) endpoint {
	pname, model := c.SplitModel(name)
	if pname == "" {
		return endpoint{baseURL: c.baseURL, key: c.apiKey, model: name, sdk: &c.client}
	}
	p := c.providers.byName[pname]
	ep := endpoint{provider: pname, baseURL: p.BaseURL, model: model}
	if p.APIKeyEnv != "" {
		ep.key = c.providers.getenv(p.APIKeyEnv)
		if ep.key == "" {
			ep.err = &ErrNoKey{Provider: pname, Var: p.APIKeyEnv}
			return ep
		}
	}
	ps := c.providers
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.sdks == nil {
		ps.sdks = map[string]*openai.Client{}
	}
	sdk := ps.sdks[pname]
	if sdk == nil {
		// Built without the SDK's defaults, which read OPENAI_API_KEY and
		// the like from the environment: the default endpoint's key must
		// never reach another provider's server.
		opts := []option.RequestOption{option.WithEnvironmentProduction(), option.WithBaseURL(p.BaseURL), option.WithMaxRetries(0),
			option.WithHTTPClient(&http.Client{Transport: newTransport()})}
		if ep.key != "" {
			opts = append(opts, option.WithAPIKey(ep.key))
		}
		for k, v := range p.Headers {
			opts = append(opts, option.WithHeader(k, v))
		}
		sdk = &openai.Client{Options: opts}
		ps.sdks[pname] = sdk
	}
	ep.sdk = sdk
	return ep
}

// CheckModel says whether requests to name can be sent: nil, or why not
// (a provider whose key variable is not set).
func (c *OpenAIClient) CheckModel(name string) error { return c.endpoint(name).err }

// Providers lists the configured providers by name.
func (c *OpenAIClient) Providers() []Provider {
	out := make([]Provider, 0, len(c.providers.byName))
	for _, p := range c.providers.byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ProviderModels lists a provider's models as NAME/MODEL: those its entry
// names, or else those its server lists.
func (c *OpenAIClient) ProviderModels(ctx context.Context, name string) ([]string, error) {
	p, ok := c.providers.byName[name]
	if !ok {
		return nil, fmt.Errorf("no provider %q", name)
	}
	ids := p.Models
	if len(ids) == 0 {
		ep := c.endpoint(name + "/x")
		if ep.err != nil {
			return nil, ep.err
		}
		list, err := ListModels(ctx, p.BaseURL, ep.key)
		if err != nil {
			return nil, err
		}
		for _, m := range list {
			ids = append(ids, m.ID)
		}
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = name + "/" + id
	}
	return out, nil
}

// redact removes every key the client knows from s.
func (c *OpenAIClient) redact(s string) string {
	if c.apiKey != "" {
		s = strings.ReplaceAll(s, c.apiKey, "[redacted]")
	}
	for _, p := range c.providers.byName {
		if p.APIKeyEnv == "" {
			continue
		}
		if k := c.providers.getenv(p.APIKeyEnv); len(k) >= 8 {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}

func newProviderSet(list []Provider) *providerSet {
	ps := &providerSet{byName: map[string]Provider{}, getenv: os.Getenv}
	for _, p := range list {
		ps.byName[p.Name] = p
	}
	return ps
}

// Describe is the package's Describe for an error of this client: the
// endpoint named is the failing model's, and a refused key names the
// provider's key variable.
func (c *OpenAIClient) Describe(err error) string {
	model := c.Model()
	var ce *CallError
	if errors.As(err, &ce) {
		model = ce.Model
	}
	ep := c.endpoint(model)
	msg := Describe(err, ep.baseURL, model)
	if ep.provider != "" {
		v := c.providers.byName[ep.provider].APIKeyEnv
		if v == "" {
			v = "the provider's api_key_env in settings"
		}
		msg = strings.Replace(msg, "check OPENAI_API_KEY", "check "+v, 1)
	}
	return msg
}
