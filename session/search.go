package session

import (
	"errors"
	"net/netip"
	"os"
	"time"

	"github.com/aci-dev/aci/tools/fetch"
	"github.com/aci-dev/aci/tools/search"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/windows"
)

// searchApp builds the session's search engines, in the order the search
// window asks them: the provider's own web search where its endpoint is
// known to offer one (or the person's settings say so), the engine in the
// person's settings, DuckDuckGo. Hosts the person chose (the model's
// endpoint, the settings' engine) are reached wherever they are;
// DuckDuckGo's requests never reach a private or link-local address.
func (s *Session) searchApp(baseURL, apiKey string, headers map[string]string) func(*windows.Env) windows.App {
	cfg := s.f.cfg.Person.Search // problems are said with the policy's (rules.go)
	timeout, providerTimeout := search.DefaultTimeout, 60*time.Second
	if cfg.TimeoutS > 0 {
		timeout = time.Duration(cfg.TimeoutS) * time.Second
		providerTimeout = timeout
	}
	var engines []search.Engine
	if model := providerSearchModel(cfg, baseURL); model != "" {
		engines = append(engines, &search.Provider{BaseURL: baseURL, APIKey: apiKey, Model: model, Headers: headers,
			Client: search.Client(providerTimeout, nil)})
	}
	if cfg.URL != "" {
		engines = append(engines, &search.SearXNG{URL: cfg.URL, Client: search.Client(timeout, nil)})
	}
	engines = append(engines, &search.DuckDuckGo{Client: search.Client(timeout, refuseInternal)})
	return windows.SearchApp(search.NewChain(engines...))
}

// providerSearchModel is the search model to ask at baseURL, "" for none.
func providerSearchModel(cfg settings.Search, baseURL string) string {
	known := search.NativeModel(baseURL)
	switch cfg.Provider {
	case "off":
		return ""
	case "openai":
		if cfg.Model != "" {
			return cfg.Model
		}
		if known != "" {
			return known
		}
		return "gpt-4o-mini-search-preview"
	}
	if known != "" && cfg.Model != "" {
		return cfg.Model
	}
	return known
}

// refuseInternal keeps a request off private and link-local networks.
func refuseInternal(ip netip.Addr) error {
	if fetch.InternalAddr(ip) {
		return errors.New("refused: " + ip.String() + " is a private or link-local address")
	}
	return nil
}

// modelEndpoint is the base URL, key and headers the session's model is
// asked at: its provider's, or the default endpoint's.
func (f *Factory) modelEndpoint(provider string) (baseURL, key string, headers map[string]string) {
	cc := f.cfg.Client
	if provider == "" {
		return cc.BaseURL, cc.APIKey, nil
	}
	for _, p := range cc.Providers {
		if p.Name == provider {
			if p.APIKeyEnv != "" {
				key = os.Getenv(p.APIKeyEnv)
			}
			return p.BaseURL, key, p.Headers
		}
	}
	return cc.BaseURL, cc.APIKey, nil
}
