package search

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// SearXNG asks a SearXNG-style JSON endpoint: GET URL?q=…&format=json
// &pageno=N, answering {"results": [{"title", "url", "content"}, …]}.
type SearXNG struct {
	URL    string // the endpoint from the person's settings
	Client *http.Client
}

// Name says where the results came from: the endpoint's host.
func (s *SearXNG) Name() string {
	if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
		return "SearXNG at " + u.Host
	}
	return "SearXNG"
}

// Endpoint is the URL asked.
func (s *SearXNG) Endpoint() string { return s.URL }

// searxResponse is the part of SearXNG's answer read.
type searxResponse struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
	UnresponsiveEngines [][]string `json:"unresponsive_engines"`
}

// Search asks for one page; cursor is the page number ("" is 1).
func (s *SearXNG) Search(ctx context.Context, query, cursor string) (Page, error) {
	page := 1
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 1 {
			return Page{}, fmt.Errorf("bad page %q", cursor)
		}
		page = n
	}
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Page{}, fail(KindRefused, "the search URL in settings (%q) is not an http(s) URL", s.URL)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/search" // a SearXNG instance's address alone
	}
	v := u.Query()
	v.Set("q", query)
	v.Set("format", "json")
	v.Set("pageno", strconv.Itoa(page))
	u.RawQuery = v.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, fmt.Errorf("building the request to %s: %w", s.Name(), err)
	}
	req.Header.Set("Accept", "application/json")
	body, _, status, err := do(s.Client, req, s.Name())
	if status == http.StatusForbidden {
		// SearXNG's answer when its settings do not list json in search.formats.
		return Page{}, fail(KindRefused, "%s refused a JSON search (HTTP 403): its settings.yml must list json under search.formats", s.Name())
	}
	if err != nil {
		return Page{}, err
	}
	var r searxResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return Page{}, fail(KindUnreadable, "%s did not answer JSON search results (%s)", s.Name(), firstWords(body))
	}
	var out Page
	for _, x := range r.Results {
		link, ok := webURL(x.URL)
		if !ok {
			continue
		}
		out.Results = append(out.Results, Result{Title: tidy(x.Title), URL: link, Snippet: tidy(x.Content)})
	}
	if len(out.Results) == 0 && len(r.UnresponsiveEngines) > 0 && page == 1 {
		var why []string
		for _, e := range r.UnresponsiveEngines {
			why = append(why, strings.Join(e, " "))
		}
		return Page{}, fail(KindDown, "%s found nothing: its engines did not answer (%s)", s.Name(), strings.Join(why, ", "))
	}
	if len(out.Results) > 0 {
		out.Next = strconv.Itoa(page + 1)
	}
	return out, nil
}

// firstWords names what a body that could not be read starts with.
func firstWords(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if s == "" {
		return "an empty body"
	}
	return "it began " + strconv.Quote(clip(s, 60))
}
