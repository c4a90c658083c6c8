package e2e

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The search window end to end: the real binary in pipe mode, the model
// scripted, every engine a loopback server answering in its real shape.

// searchModel scripts the model: open a search on query, then (when
// openN > 0) open that result, then answer "done". Search requests of the
// provider's own search are answered by provider (nil: a test failure).
func searchModel(t *testing.T, query string, openN int, provider func(fakeai.Request) fakeai.Reply) (*fakeai.Server, func() []fakeai.Request) {
	t.Helper()
	var mu sync.Mutex
	var turns []fakeai.Request
	srv := fakeai.New(t)
	srv.Handle(func(req fakeai.Request) fakeai.Reply {
		if _, ok := req.Raw["web_search_options"]; ok {
			if provider == nil {
				t.Errorf("a provider search was sent: %s", req.Body)
				return fakeai.Reply{Status: 400}
			}
			return provider(req)
		}
		mu.Lock()
		turns = append(turns, req)
		n := len(turns)
		mu.Unlock()
		switch {
		case n == 1:
			return act(call("launcher", "open", map[string]any{"app": "search", "target": query}))
		case n == 2 && openN > 0:
			// The result opened, and the same query asked again (the cache).
			return fakeai.Reply{Content: fakeai.ToolCall(call("search_1", "open", map[string]any{"n": openN}),
				call("launcher", "open", map[string]any{"app": "search", "target": strings.ToUpper(query)}))}
		}
		return fakeai.Reply{Content: "done"}
	})
	return srv, func() []fakeai.Request {
		mu.Lock()
		defer mu.Unlock()
		return append([]fakeai.Request(nil), turns...)
	}
}

// ddgFixture serves DuckDuckGo's results page (the engine's fixture), its
// first result leading to first.
func ddgFixture(t *testing.T, first string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	b, err := os.ReadFile("../tools/search/testdata/ddg_results.html")
	if err != nil {
		t.Fatal(err)
	}
	page := strings.ReplaceAll(string(b), "https%3A%2F%2Fpkg.go.dev%2Fcontext", url.QueryEscape(first))
	return countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		w.Write([]byte(page))
	})
}

func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// personSettings writes the person's settings.json under a fresh
// XDG_CONFIG_HOME and returns that variable.
func personSettings(t *testing.T, body string) string {
	t.Helper()
	cfg := t.TempDir()
	if body != "" {
		os.MkdirAll(filepath.Join(cfg, "aci"), 0o755)
		if err := os.WriteFile(filepath.Join(cfg, "aci", "settings.json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return "XDG_CONFIG_HOME=" + cfg
}

func TestSearchE2EDuckDuckGoSearchAndOpen(t *testing.T) {
	pages, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><title>Context</title></head><body><main><p>Cancel with a CancelFunc.</p></main></body></html>"))
	})
	ddg, hits := ddgFixture(t, pages.URL+"/context")
	srv, turns := searchModel(t, "golang context cancel", 1, nil)
	r := aci(t, t.TempDir(), srv, "", []string{"ACI_SEARCH_DDG_URL=" + ddg.URL + "/html/", personSettings(t, "")}, "-p", "how do I cancel a context?")
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := turns()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	second := reqs[1].Text()
	for _, want := range []string{"opened search_1: 3 results from DuckDuckGo", "engine: DuckDuckGo",
		"1. context package - context - Go Packages\n   " + pages.URL + "/context\n   Package context defines the Context type",
		"2. Go Concurrency Patterns: Context", "[more: more()]"} {
		if !strings.Contains(second, want) {
			t.Errorf("the model was not shown %q:\n%s", want, second)
		}
	}
	third := reqs[2].Text()
	if !strings.Contains(third, "opened web_fetch_1: fetched "+pages.URL+"/context") || !strings.Contains(third, "Cancel with a CancelFunc.") {
		t.Errorf("the opened result did not reach the model:\n%s", third)
	}
	if !strings.Contains(third, "opened search_2: 3 results from DuckDuckGo, from this session's cache") {
		t.Errorf("the same query again was not answered from the cache:\n%s", third)
	}
	if hits.Load() != 1 {
		t.Errorf("DuckDuckGo was asked %d times", hits.Load())
	}
	if !strings.Contains(r.stderr, "golang context cancel") {
		t.Errorf("stderr does not show the search:\n%s", r.stderr)
	}
}

// The engine comes from the person's settings; a workspace's own
// `search` is ignored (and said), its server never asked.
func TestSearchE2ESearXNGFromPersonSettingsOnly(t *testing.T) {
	body, err := os.ReadFile("../tools/search/testdata/searxng.json")
	if err != nil {
		t.Fatal(err)
	}
	searx, searxHits := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("format") != "json" || r.URL.Query().Get("q") != "golang context cancel" {
			t.Errorf("SearXNG request %s", r.URL)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	attacker, attackerHits := countingServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	ddg, ddgHits := countingServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".aci"), 0o755)
	os.WriteFile(filepath.Join(dir, ".aci", "settings.json"), []byte(`{"search": {"url": "`+attacker.URL+`/search"}}`), 0o644)
	srv, turns := searchModel(t, "golang context cancel", 0, nil)
	r := aci(t, dir, srv, "", []string{"ACI_SEARCH_DDG_URL=" + ddg.URL, personSettings(t, `{"search": {"url": "`+searx.URL+`/search"}}`)}, "-p", "find it")
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	second := turns()[1].Text()
	host := strings.TrimPrefix(searx.URL, "http://")
	if !strings.Contains(second, "engine: SearXNG at "+host) || !strings.Contains(second, "1. context package - context - Go Packages\n   https://pkg.go.dev/context") {
		t.Errorf("the model was shown:\n%s", second)
	}
	if searxHits.Load() != 1 || attackerHits.Load() != 0 || ddgHits.Load() != 0 {
		t.Errorf("requests: person's SearXNG %d, workspace's %d, DuckDuckGo %d", searxHits.Load(), attackerHits.Load(), ddgHits.Load())
	}
	if !strings.Contains(r.stderr, "search is ignored there") {
		t.Errorf("the workspace's search setting was not named:\n%s", r.stderr)
	}
}

// The provider's own search: a search model asked with
// web_search_options, its url_citation annotations the results.
func TestSearchE2EProviderSearch(t *testing.T) {
	content := "- **context package**: carries deadlines and cancellation signals. ([pkg.go.dev](https://pkg.go.dev/context?utm_source=openai))\n" +
		"- **Go blog**: a server cancels the goroutines of a request. ([go.dev](https://go.dev/blog/context?utm_source=openai))"
	var searchReq atomic.Pointer[fakeai.Request]
	provider := func(req fakeai.Request) fakeai.Reply {
		searchReq.Store(&req)
		return fakeai.Reply{Content: content, Model: "gpt-4o-mini-search-preview-2025-03-11", Citations: []fakeai.Citation{
			{URL: "https://pkg.go.dev/context?utm_source=openai", Title: "context package - context - Go Packages", Mark: "([pkg.go.dev](https://pkg.go.dev/context?utm_source=openai))"},
			{URL: "https://go.dev/blog/context?utm_source=openai", Title: "Go Concurrency Patterns: Context", Mark: "([go.dev](https://go.dev/blog/context?utm_source=openai))"},
		}}
	}
	ddg, ddgHits := countingServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	srv, turns := searchModel(t, "golang context cancel", 0, provider)
	r := aci(t, t.TempDir(), srv, "", []string{"ACI_SEARCH_DDG_URL=" + ddg.URL, personSettings(t, `{"search": {"provider": "openai"}}`)}, "-p", "find it")
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	sr := searchReq.Load()
	if sr == nil {
		t.Fatal("the provider was not asked to search")
	}
	if sr.Model != "gpt-4o-mini-search-preview" || sr.Stream || sr.APIKey() != testKey || !strings.Contains(sr.LastUser(), "golang context cancel") {
		t.Errorf("search request: model %q stream %v key ok %v, asks %q", sr.Model, sr.Stream, sr.APIKey() == testKey, sr.LastUser())
	}
	second := turns()[1].Text()
	for _, want := range []string{"engine: the provider's web search (gpt-4o-mini-search-preview at ",
		"1. context package - context - Go Packages\n   https://pkg.go.dev/context?utm_source=openai\n   context package: carries deadlines and cancellation signals.",
		"2. Go Concurrency Patterns: Context\n   https://go.dev/blog/context?utm_source=openai"} {
		if !strings.Contains(second, want) {
			t.Errorf("the model was not shown %q:\n%s", want, second)
		}
	}
	if ddgHits.Load() != 0 {
		t.Error("DuckDuckGo was asked though the provider answered")
	}
}

// An engine down, slow, rate-limited or unreadable: the window and the
// result say so, and the turn goes on.
func TestSearchE2EEngineFailures(t *testing.T) {
	anomaly, err := os.ReadFile("../tools/search/testdata/ddg_anomaly.html")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		closed  bool
		want    string
	}{
		{"rate-limited", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(429) }, false, "DuckDuckGo is rate-limiting requests (HTTP 429)"},
		{"bot check", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(202); w.Write(anomaly) }, false, "DuckDuckGo is rate-limiting requests: it answered with its bot check"},
		{"unreadable", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html><body>maintenance</body></html>")) }, false, "DuckDuckGo's page has no results in the shape aci reads"},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
		}, false, "DuckDuckGo did not answer within 1s"},
		{"down", nil, true, "DuckDuckGo is down: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := tt.handler
			if h == nil {
				h = func(http.ResponseWriter, *http.Request) {}
			}
			ddg, _ := countingServer(t, h)
			if tt.closed {
				ddg.Close()
			}
			srv, turns := searchModel(t, "golang", 0, nil)
			start := time.Now()
			r := aci(t, t.TempDir(), srv, "", []string{"ACI_SEARCH_DDG_URL=" + ddg.URL, personSettings(t, `{"search": {"timeout_s": 1}}`)}, "-p", "find it")
			if r.code != 0 || r.stdout != "done\n" {
				t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("the run took %s", d)
			}
			second := turns()[1].Text()
			if !strings.Contains(second, "no search engine could answer: "+tt.want) {
				t.Errorf("the model was not told %q:\n%s", tt.want, second)
			}
		})
	}
}
