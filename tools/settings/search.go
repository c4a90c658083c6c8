package settings

import (
	"encoding/json"
	"fmt"
	"net/url"
)

// Search is `search` in the person's settings: which engines the search
// window asks.
type Search struct {
	// URL is a SearXNG-style JSON endpoint (…/search?q=…&format=json).
	URL string `json:"url,omitempty"`
	// Provider is whether the model's endpoint answers web searches
	// (web_search_options): "" or "auto" where it is known to (OpenAI,
	// OpenRouter), "openai" for an endpoint that speaks OpenAI's API (a
	// gateway), "off" never.
	Provider string `json:"provider,omitempty"`
	// Model is the provider's search model ("" is its known one).
	Model string `json:"model,omitempty"`
	// TimeoutS bounds each engine's answer, in seconds (0: 15, and 60 for
	// the provider's, whose model reads the pages before it answers).
	TimeoutS int `json:"timeout_s,omitempty"`
}

// parseSearch reads `search`, from the person's file only: the engine is
// where every query goes, which a cloned repository must not pick (a
// project's `search` is named in its Problems). A bad entry is named in
// problems and left out.
func parseSearch(path string, raw json.RawMessage) (Search, []string) {
	if raw == nil || string(raw) == "null" {
		return Search{}, nil
	}
	var f struct {
		Search *Search
	}
	if err := json.Unmarshal(raw, &f.Search); err != nil {
		return Search{}, []string{fmt.Sprintf("settings: %s: search: %v", path, err)}
	}
	s := *f.Search
	var problems []string
	if s.URL != "" {
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems = append(problems, fmt.Sprintf("settings: %s: search.url must be an http(s) URL such as https://searx.example.org/search, got %q", path, s.URL))
			s.URL = ""
		}
	}
	switch s.Provider {
	case "", "auto", "openai", "off":
	default:
		problems = append(problems, fmt.Sprintf("settings: %s: search.provider must be auto, openai or off, got %q", path, s.Provider))
		s.Provider = ""
	}
	if s.TimeoutS < 0 {
		problems = append(problems, fmt.Sprintf("settings: %s: search.timeout_s must be positive, got %d", path, s.TimeoutS))
		s.TimeoutS = 0
	}
	return s, problems
}
