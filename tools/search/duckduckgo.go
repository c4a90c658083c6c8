package search

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// DuckDuckGoURL is DuckDuckGo's HTML endpoint, the engine of last resort.
const DuckDuckGoURL = "https://html.duckduckgo.com/html/"

// DuckDuckGoEnv overrides DuckDuckGoURL; it exists for tests, which answer
// in DuckDuckGo's shape from a loopback server.
const DuckDuckGoEnv = "ACI_SEARCH_DDG_URL"

// DuckDuckGo reads DuckDuckGo's HTML results page: links a.result__a
// (through its /l/?uddg= redirect), snippets .result__snippet, the next
// page from the form of its "Next" button.
type DuckDuckGo struct {
	URL    string // "" is DuckDuckGoURL, or DuckDuckGoEnv's value
	Client *http.Client
}

// Name is the engine's name.
func (d *DuckDuckGo) Name() string { return "DuckDuckGo" }

// Endpoint is the URL asked.
func (d *DuckDuckGo) Endpoint() string {
	if d.URL != "" {
		return d.URL
	}
	if u := os.Getenv(DuckDuckGoEnv); u != "" {
		return u
	}
	return DuckDuckGoURL
}

// Search GETs the first page; cursor is the next page's form, encoded,
// which is POSTed as the page's own button would.
func (d *DuckDuckGo) Search(ctx context.Context, query, cursor string) (Page, error) {
	var req *http.Request
	var err error
	if cursor == "" {
		u := d.Endpoint() + "?" + url.Values{"q": {query}}.Encode()
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	} else {
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, d.Endpoint(), strings.NewReader(cursor))
		if req != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	}
	if err != nil {
		return Page{}, fmt.Errorf("building the request to DuckDuckGo: %w", err)
	}
	req.Header.Set("Accept", "text/html")
	body, _, _, err := do(d.Client, req, d.Name())
	if err != nil {
		return Page{}, err
	}
	return parseDuckDuckGo(body)
}

// parseDuckDuckGo reads a results page.
func parseDuckDuckGo(body []byte) (Page, error) {
	if isAnomaly(body) {
		return Page{}, fail(KindRateLimited, "DuckDuckGo is rate-limiting requests: it answered with its bot check instead of results")
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return Page{}, fail(KindUnreadable, "DuckDuckGo's page could not be read: %v", err)
	}
	var page Page
	seenBody, noResults := false, false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			cls := classes(n)
			switch {
			case slices.Contains(cls, "no-results") || slices.Contains(cls, "result--no-result"):
				noResults = true
				return
			case slices.Contains(cls, "result--ad"):
				return // an advertisement, not a result
			case slices.Contains(cls, "result__body"):
				seenBody = true
				if r, ok := readResult(n); ok {
					page.Results = append(page.Results, r)
				}
				return
			case n.Data == "form" && page.Next == "" && hasNextButton(n):
				page.Next = formValues(n)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if !seenBody && !noResults {
		return Page{}, fail(KindUnreadable, "DuckDuckGo's page has no results in the shape aci reads (it may have changed): %s", firstWords(textOf(doc)))
	}
	if len(page.Results) == 0 {
		page.Next = ""
	}
	return page, nil
}

// isAnomaly spots the page DuckDuckGo sends a client it takes for a bot.
func isAnomaly(body []byte) bool {
	return bytes.Contains(body, []byte("anomaly-modal")) || bytes.Contains(body, []byte("challenge-form")) ||
		bytes.Contains(body, []byte("bots use DuckDuckGo too"))
}

// readResult takes the title, link and snippet out of a result__body.
func readResult(n *html.Node) (Result, bool) {
	var r Result
	var href string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			cls := classes(n)
			switch {
			case slices.Contains(cls, "result__a") && href == "":
				href, r.Title = attr(n, "href"), string(textOf(n))
				return
			case slices.Contains(cls, "result__snippet") && r.Snippet == "":
				r.Snippet = string(textOf(n))
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	link, ok := resultLink(href)
	if !ok {
		return Result{}, false
	}
	r.URL, r.Title, r.Snippet = link, tidy(r.Title), tidy(r.Snippet)
	return r, true
}

// resultLink decodes DuckDuckGo's redirect (//duckduckgo.com/l/?uddg=URL)
// to the page it leads to; a plain link is kept as it is.
func resultLink(href string) (string, bool) {
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return "", false
	}
	if target := u.Query().Get("uddg"); target != "" && strings.HasPrefix(u.Path, "/l/") {
		return webURL(target)
	}
	if strings.HasSuffix(u.Host, "duckduckgo.com") {
		return "", false // its own pages (ads' y.js) are no results
	}
	return webURL(href)
}

// hasNextButton reports the form whose submit button says Next.
func hasNextButton(form *html.Node) bool {
	found := false
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "input" && attr(n, "type") == "submit" &&
			strings.EqualFold(strings.TrimSpace(attr(n, "value")), "next") {
			found = true
		}
		for c := n.FirstChild; c != nil && !found; c = c.NextSibling {
			walk(c)
		}
	}
	walk(form)
	return found
}

// formValues encodes a form's hidden inputs, as the browser would post them.
func formValues(form *html.Node) string {
	v := url.Values{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "input" && attr(n, "type") == "hidden" && attr(n, "name") != "" {
			v.Add(attr(n, "name"), attr(n, "value"))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(form)
	return v.Encode()
}

func classes(n *html.Node) []string { return strings.Fields(attr(n, "class")) }

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is the text inside n, scripts and styles left out.
func textOf(n *html.Node) []byte {
	var b bytes.Buffer
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style"):
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.Bytes()
}
