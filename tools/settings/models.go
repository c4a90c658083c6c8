package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// The model endpoints and prices of the settings files (docs/protocol.md §2):
//
//	"providers": {"NAME": {"base_url": "...", "api_key_env": "VAR", "models": ["..."], "headers": {...}}}
//	"prices":    {"MODEL": {"input": 0.25, "cached_input": 0.025, "cache_write": 0.3, "output": 2.0}}
//
// Providers come from the person's file alone: a workspace's file naming
// an endpoint and a key variable could send the person's key to a server
// a cloned repository chose. Prices come from both, the person's winning.

// Provider is one more OpenAI-compatible endpoint.
type Provider struct {
	BaseURL   string            `json:"base_url"`
	APIKeyEnv string            `json:"api_key_env,omitempty"`
	Models    []string          `json:"models,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
}

// Price is a model's price in USD per million tokens; CachedInput
// defaults to Input, CacheWrite to Input.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input"`
	CacheWrite  float64 `json:"cache_write"`
	Output      float64 `json:"output"`
}

// Models is what the settings files say about model endpoints and prices.
type Models struct {
	Providers map[string]Provider
	Prices    map[string]Price
	// Notes are things said at start that do not stop aci.
	Notes []string
}

// isEnvName reports whether s can name an environment variable.
func isEnvName(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// ModelsOf is what both scopes say about endpoints and prices: the
// person's providers, the project's prices under the person's (pr nil is
// no workspace).
func ModelsOf(p *Person, pr *Project) Models {
	m := Models{Providers: map[string]Provider{}, Prices: map[string]Price{}}
	if pr != nil {
		for k, v := range pr.Prices {
			m.Prices[k] = v
		}
		m.Notes = append(m.Notes, pr.Notes...)
	}
	if p != nil {
		for k, v := range p.Providers {
			m.Providers[k] = v
		}
		for k, v := range p.Prices {
			m.Prices[k] = v
		}
	}
	return m
}

func joinKeys[V any](m map[string]V) string { return strings.Join(sortedKeys(m), ", ") }

type modelsFile struct {
	Providers map[string]json.RawMessage `json:"providers"`
	Prices    map[string]json.RawMessage `json:"prices"`
}

type parsed struct {
	Providers map[string]Provider
	Prices    map[string]Price
}

func parseModels(path string, top map[string]json.RawMessage) (parsed, error) {
	var p parsed
	var f modelsFile
	for key, into := range map[string]any{"providers": &f.Providers, "prices": &f.Prices} {
		if raw := top[key]; raw != nil {
			if err := json.Unmarshal(raw, into); err != nil {
				return p, fmt.Errorf("settings: %s: %s: %w", path, key, err)
			}
		}
	}
	p.Providers = map[string]Provider{}
	for _, name := range sortedKeys(f.Providers) {
		pr, err := parseProvider(name, f.Providers[name])
		if err != nil {
			return p, fmt.Errorf("settings: %s: providers.%s: %w", path, name, err)
		}
		p.Providers[name] = pr
	}
	p.Prices = map[string]Price{}
	for _, model := range sortedKeys(f.Prices) {
		pr, err := parsePrice(f.Prices[model])
		if err != nil {
			return p, fmt.Errorf("settings: %s: prices.%s: %w", path, model, err)
		}
		p.Prices[model] = pr
	}
	return p, nil
}

func parseProvider(name string, raw json.RawMessage) (Provider, error) {
	var pr Provider
	if name == "" || strings.ContainsAny(name, "/ \t") {
		return pr, errors.New("a provider's name must be one word without a slash")
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pr); err != nil {
		return pr, err
	}
	u, err := url.Parse(pr.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return pr, fmt.Errorf("base_url must be an http(s) URL, got %q", pr.BaseURL)
	}
	pr.BaseURL = strings.TrimRight(pr.BaseURL, "/")
	if pr.APIKeyEnv != "" && !isEnvName(pr.APIKeyEnv) {
		return pr, fmt.Errorf("api_key_env must name an environment variable, got %q", pr.APIKeyEnv)
	}
	for _, m := range pr.Models {
		if strings.TrimSpace(m) == "" {
			return pr, errors.New("models has an empty name")
		}
	}
	return pr, nil
}

func parsePrice(raw json.RawMessage) (Price, error) {
	var v struct {
		Input       *float64 `json:"input"`
		CachedInput *float64 `json:"cached_input"`
		CacheWrite  *float64 `json:"cache_write"`
		Output      *float64 `json:"output"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return Price{}, err
	}
	if v.Input == nil || v.Output == nil {
		return Price{}, errors.New(`needs "input" and "output" (USD per million tokens)`)
	}
	p := Price{Input: *v.Input, CachedInput: *v.Input, CacheWrite: *v.Input, Output: *v.Output}
	if v.CachedInput != nil {
		p.CachedInput = *v.CachedInput
	}
	if v.CacheWrite != nil {
		p.CacheWrite = *v.CacheWrite
	}
	if p.Input < 0 || p.CachedInput < 0 || p.CacheWrite < 0 || p.Output < 0 {
		return Price{}, errors.New("prices must not be negative")
	}
	return p, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
