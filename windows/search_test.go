package windows

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/rules"
	"github.com/aci-dev/aci/tools/search"
	"github.com/aci-dev/aci/tools/settings"
)

// ddgServer answers in DuckDuckGo's HTML shape (the engine's fixture),
// its first result leading to page; it counts the searches.
func ddgServer(t *testing.T, page string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	b, err := os.ReadFile("../tools/search/testdata/ddg_results.html")
	if err != nil {
		t.Fatal(err)
	}
	html := strings.ReplaceAll(string(b), "https%3A%2F%2Fpkg.go.dev%2Fcontext", url.QueryEscape(page))
	p2, err := os.ReadFile("../tools/search/testdata/ddg_page2.html")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		if r.Method == http.MethodPost {
			w.Write(p2)
			return
		}
		w.Write([]byte(html))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func newSearchManager(t *testing.T, engines ...search.Engine) *Manager {
	t.Helper()
	m := NewManager(Env{Workdir: t.TempDir(), OutputLimit: 30000, Approver: denyAll()}, FileApp, WebApp, SearchApp(search.NewChain(engines...)))
	t.Cleanup(m.CloseAll)
	return m
}

func TestSearchWindowSearchMoreOpen(t *testing.T) {
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><title>Context docs</title></head><body><main><h1>Package context</h1><p>Cancel with a CancelFunc.</p></main></body></html>"))
	}))
	t.Cleanup(pages.Close)
	ddg, n := ddgServer(t, pages.URL+"/context")
	m := newSearchManager(t, &search.DuckDuckGo{URL: ddg.URL + "/html/", Client: search.Client(0, nil)})

	r := do(t, m, "launcher", "open", `{"app":"search","target":"golang context cancel"}`)
	if r.Status != protocol.StatusOK || r.Text != "opened search_1: 3 results from DuckDuckGo" {
		t.Fatalf("open: %+v", r)
	}
	view := content(m, "search_1")
	for _, want := range []string{"search: golang context cancel", "engine: DuckDuckGo", "1. context package - context - Go Packages\n   " + pages.URL + "/context\n   Package context defines",
		"3. go - How to use context.WithCancel correctly", "[more: more()]"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "Learn Go Fast") {
		t.Error("the ad is listed")
	}
	if r := do(t, m, "search_1", "more", ""); r.Status != protocol.StatusOK || r.Text != "results 4 to 4 from DuckDuckGo" {
		t.Fatalf("more: %+v", r)
	}
	if view := content(m, "search_1"); !strings.Contains(view, "4. How To Use Contexts in Go | DigitalOcean") || strings.Contains(view, "[more") {
		t.Errorf("after more:\n%s", view)
	}
	if r := do(t, m, "search_1", "more", ""); r.Status != protocol.StatusError || !strings.Contains(r.Text, "no more results") {
		t.Errorf("more at the end: %+v", r)
	}
	r = do(t, m, "search_1", "open", `{"n":1}`)
	if r.Status != protocol.StatusOK || !strings.HasPrefix(r.Text, "opened web_fetch_1: fetched "+pages.URL+"/context") {
		t.Fatalf("open 1: %+v", r)
	}
	if view := content(m, "web_fetch_1"); !strings.Contains(view, "Cancel with a CancelFunc.") {
		t.Errorf("the page:\n%s", view)
	}
	if r := do(t, m, "search_1", "open", `{"n":9}`); r.Status != protocol.StatusError || r.Text != "result 9 does not exist: there are 4 results" {
		t.Errorf("open 9: %+v", r)
	}
	// Asked again, in another window: from the session's cache.
	if r := do(t, m, "launcher", "open", `{"app":"search","target":"Golang context  cancel"}`); r.Text != "opened search_2: 3 results from DuckDuckGo, from this session's cache" {
		t.Errorf("again: %+v", r)
	}
	if n.Load() != 2 { // the first page and the more
		t.Errorf("%d requests, want 2", n.Load())
	}
	d := m.Describe("search_1", "open", map[string]json.RawMessage{"n": json.RawMessage("1")})
	if d.Title != "fetch "+pages.URL+"/context" || d.Kind != "fetch" {
		t.Errorf("describe: %+v", d)
	}
}

func TestSearchWindowNoEngineCouldAnswer(t *testing.T) {
	rl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTooManyRequests) }))
	t.Cleanup(rl.Close)
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<p>hello</p>")) }))
	t.Cleanup(garbage.Close)
	m := newSearchManager(t, &search.SearXNG{URL: rl.URL, Client: search.Client(0, nil)}, &search.DuckDuckGo{URL: garbage.URL, Client: search.Client(0, nil)})
	if r := do(t, m, "launcher", "open", `{"app":"search"}`); r.Text != "opened search_1: no query yet; use search(query)" {
		t.Fatal(r)
	}
	r := do(t, m, "search_1", "search", `{"query":"x"}`)
	if r.Status != protocol.StatusError || !strings.Contains(r.Text, "no search engine could answer") ||
		!strings.Contains(r.Text, "HTTP 429") || !strings.Contains(r.Text, "DuckDuckGo's page has no results") {
		t.Fatalf("%+v", r)
	}
	view := content(m, "search_1")
	if !strings.Contains(view, "no search engine could answer:\n- SearXNG at") || !strings.Contains(view, "- DuckDuckGo's page has no results") {
		t.Errorf("view:\n%s", view)
	}
}

func TestSearchWindowRefusesSecretsAndDeniedHosts(t *testing.T) {
	const secret = "sk-search-secret-1234567"
	ddg, n := ddgServer(t, "https://example.org/")
	m := newSearchManager(t, &search.DuckDuckGo{URL: ddg.URL, Client: search.Client(0, nil)})
	m.env.Secrets.Add(secret)
	r := do(t, m, "launcher", "open", `{"app":"search","target":"why does `+secret+` fail"}`)
	if r.Status != protocol.StatusDenied || strings.Contains(r.Text, secret) || n.Load() != 0 {
		t.Fatalf("%+v, %d requests", r, n.Load())
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	set, _ := rules.Load(t.TempDir(), settings.Policy{Person: settings.Permissions{
		Deny: []settings.Entry{{Pattern: "web:127.0.0.1", Source: "s"}}}})
	m.env.Rules = set
	r = do(t, m, "launcher", "open", `{"app":"search","target":"golang"}`)
	if r.Status != protocol.StatusError || !strings.Contains(r.Text, "denied by the rule deny web:127.0.0.1") || n.Load() != 0 {
		t.Fatalf("%+v, %d requests", r, n.Load())
	}
}
