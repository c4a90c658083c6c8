package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
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

// LoadSearch reads `search` from the person's settings file only: the
// engine is where every query goes, which a cloned repository must not
// pick. A `search` in the workspace's file is ignored and named in
// problems, as is a file that cannot be read or a bad entry.
func LoadSearch(workspace string) (Search, []string) {
	s, problems := readSearch(UserPath())
	if workspace != "" {
		if hasSearch(WorkspacePath(workspace)) {
			problems = append(problems, fmt.Sprintf("settings: %s: search is ignored there: only the person's settings (%s) choose the search engine",
				WorkspacePath(workspace), UserPath()))
		}
	}
	return s, problems
}

func readSearch(path string) (Search, []string) {
	if path == "" {
		return Search{}, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Search{}, nil
	}
	if err != nil {
		return Search{}, []string{fmt.Sprintf("settings: %v", err)}
	}
	var f struct {
		Search *Search `json:"search"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return Search{}, []string{fmt.Sprintf("settings: %s: search: %v", path, err)}
	}
	if f.Search == nil {
		return Search{}, nil
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

// hasSearch reports whether the file at path sets `search` at all.
func hasSearch(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var f map[string]json.RawMessage
	return json.Unmarshal(b, &f) == nil && f["search"] != nil
}
