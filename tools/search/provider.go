package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Provider is a model provider's own web search through Chat Completions:
// a search model asked with web_search_options, whose answer cites the
// pages it found as url_citation annotations (OpenAI's API; OpenRouter
// passes the same request to OpenAI's search models).
type Provider struct {
	BaseURL string // the model endpoint, e.g. https://api.openai.com/v1
	APIKey  string
	Model   string // the search model
	Headers map[string]string
	Client  *http.Client
}

// nativeSearch is the one table of endpoints known to answer
// web_search_options, with the search model each offers: the provider's
// search is used there alone, unless the person's settings say otherwise.
var nativeSearch = map[string]string{
	"api.openai.com": "gpt-4o-mini-search-preview",
	"openrouter.ai":  "openai/gpt-4o-mini-search-preview",
}

// NativeModel is the search model of the endpoint baseURL, "" where the
// endpoint is not known to offer a web search.
func NativeModel(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return nativeSearch[strings.ToLower(u.Hostname())]
}

// Name names the provider by its host.
func (p *Provider) Name() string {
	host := p.BaseURL
	if u, err := url.Parse(p.BaseURL); err == nil && u.Host != "" {
		host = u.Host
	}
	return fmt.Sprintf("the provider's web search (%s at %s)", p.Model, host)
}

// Endpoint is the chat completions URL.
func (p *Provider) Endpoint() string { return strings.TrimSuffix(p.BaseURL, "/") + "/chat/completions" }

type providerRequest struct {
	Model            string            `json:"model"`
	Messages         []providerMessage `json:"messages"`
	WebSearchOptions webSearchOptions  `json:"web_search_options"`
}

type providerMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type webSearchOptions struct {
	SearchContextSize string `json:"search_context_size,omitempty"`
}

type providerResponse struct {
	Choices []struct {
		Message struct {
			Content     string `json:"content"`
			Annotations []struct {
				Type        string `json:"type"`
				URLCitation struct {
					URL        string `json:"url"`
					Title      string `json:"title"`
					StartIndex int    `json:"start_index"`
					EndIndex   int    `json:"end_index"`
					Content    string `json:"content"` // OpenRouter adds the cited text
				} `json:"url_citation"`
			} `json:"annotations"`
		} `json:"message"`
	} `json:"choices"`
}

type providerError struct {
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Search asks the search model once: its answer has no further pages.
func (p *Provider) Search(ctx context.Context, query, cursor string) (Page, error) {
	if cursor != "" {
		return Page{}, nil
	}
	body, err := json.Marshal(providerRequest{
		Model: p.Model,
		Messages: []providerMessage{{Role: "user", Content: "Search the web for: " + query +
			"\nList the most relevant pages, one line each, with what each says about it, citing each page."}},
		WebSearchOptions: webSearchOptions{SearchContextSize: "low"},
	})
	if err != nil {
		return Page{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Endpoint(), bytes.NewReader(body))
	if err != nil {
		return Page{}, fmt.Errorf("building the request to %s: %w", p.Name(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, v := range p.Headers {
		req.Header.Set(k, v)
	}
	if p.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.APIKey)
	}
	out, _, _, err := do(p.Client, req, p.Name())
	if e, ok := err.(*Error); ok && e.Kind == KindRefused && len(out) > 0 {
		var pe providerError
		if json.Unmarshal(out, &pe) == nil && pe.Error.Message != "" {
			e.Msg = strings.SplitN(e.Msg, ":", 2)[0] + ": " + clip(pe.Error.Message, 200)
		}
		return Page{}, e
	}
	if err != nil {
		return Page{}, err
	}
	var r providerResponse
	if err := json.Unmarshal(out, &r); err != nil || len(r.Choices) == 0 {
		return Page{}, fail(KindUnreadable, "%s did not answer a chat completion (%s)", p.Name(), firstWords(out))
	}
	msg := r.Choices[0].Message
	content := []rune(msg.Content)
	var page Page
	seen := map[string]bool{}
	for _, a := range msg.Annotations {
		c := a.URLCitation
		link, ok := webURL(c.URL)
		if a.Type != "url_citation" || !ok || seen[link] {
			continue
		}
		seen[link] = true
		snippet := c.Content
		if snippet == "" {
			snippet = citedText(content, c.StartIndex, c.EndIndex)
		}
		page.Results = append(page.Results, Result{Title: tidy(c.Title), URL: link, Snippet: tidy(snippet)})
	}
	if len(page.Results) == 0 {
		return Page{}, fail(KindUnreadable, "%s cited no pages: %s", p.Name(), firstWords([]byte(msg.Content)))
	}
	return page, nil
}

// citedText is what a citation stands for: the line of the answer that
// holds it, up to the citation's own mark (start..end spans the mark,
// a markdown link, in characters).
func citedText(content []rune, start, end int) string {
	start = min(max(start, 0), len(content))
	end = min(max(end, start), len(content))
	from := start
	for from > 0 && content[from-1] != '\n' {
		from--
	}
	line := string(content[from:start])
	if strings.TrimSpace(strings.Trim(line, "-*•([ ")) == "" {
		// The mark leads its line: the words after it are the claim.
		to := end
		for to < len(content) && content[to] != '\n' {
			to++
		}
		line = string(content[end:to])
	}
	line = strings.NewReplacer("**", "", "__", "").Replace(line) // markdown emphasis
	line = strings.TrimLeft(strings.TrimSpace(line), "-*•0123456789. ")
	return strings.TrimRight(strings.TrimSpace(line), "([")
}
