package search

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serve answers every request with status, content type and body, and
// counts them.
func serve(t *testing.T, status int, ctype string, body []byte, check func(*http.Request)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if check != nil {
			check(r)
		}
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestDuckDuckGoResults(t *testing.T) {
	var posted string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			posted = string(b)
			w.Write(fixture(t, "ddg_page2.html"))
			return
		}
		if r.URL.Path != "/html/" || r.URL.Query().Get("q") != "golang context cancel" {
			t.Errorf("request %s", r.URL)
		}
		w.Write(fixture(t, "ddg_results.html"))
	}))
	defer srv.Close()
	d := &DuckDuckGo{URL: srv.URL + "/html/", Client: Client(0, nil)}
	page, err := d.Search(context.Background(), "golang context cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{"context package - context - Go Packages", "https://pkg.go.dev/context",
			"Package context defines the Context type, which carries deadlines, cancellation signals, and other request-scoped values across API boundaries and between processes."},
		{"Go Concurrency Patterns: Context - The Go Programming Language", "https://go.dev/blog/context?utm=a&b=%C3%A9",
			"In Go servers, each incoming request is handled in its own goroutine. Request handlers often start additional goroutines to access backends & cancel them."},
		{"go - How to use context.WithCancel correctly - Stack Overflow", "https://stackoverflow.com/questions/52799280/context-cancel-vs-done",
			"Calling the CancelFunc cancels the child and its children, removes the parent's reference to the child, and stops any associated timers."},
	}
	if len(page.Results) != len(want) {
		t.Fatalf("results %+v, want %d (the ad left out)", page.Results, len(want))
	}
	for i := range want {
		if page.Results[i] != want[i] {
			t.Errorf("result %d\n got %+v\nwant %+v", i+1, page.Results[i], want[i])
		}
	}
	if !strings.Contains(page.Next, "s=10") || !strings.Contains(page.Next, "vqd=4-21849384193517339302483498342911834411") {
		t.Fatalf("next %q", page.Next)
	}
	more, err := d.Search(context.Background(), "golang context cancel", page.Next)
	if err != nil {
		t.Fatal(err)
	}
	if posted != page.Next {
		t.Errorf("posted %q, want the Next form %q", posted, page.Next)
	}
	if len(more.Results) != 1 || more.Results[0].URL != "https://www.digitalocean.com/community/tutorials/how-to-use-contexts-in-go" || more.Next != "" {
		t.Errorf("page 2: %+v", more)
	}
}

// An engine's failures each have their kind and say why.
func TestEngineFailures(t *testing.T) {
	ddg := func(url string) Engine { return &DuckDuckGo{URL: url, Client: Client(0, nil)} }
	searx := func(url string) Engine { return &SearXNG{URL: url + "/search", Client: Client(0, nil)} }
	tests := []struct {
		name   string
		engine func(url string) Engine
		ctype  string
		status int
		body   []byte
		kind   string
		words  string
	}{
		{"ddg anomaly page", ddg, "text/html", http.StatusAccepted, fixture(t, "ddg_anomaly.html"), KindRateLimited, "bot check"},
		{"ddg 429", ddg, "text/html", http.StatusTooManyRequests, []byte("slow down"), KindRateLimited, "HTTP 429"},
		{"ddg garbage", ddg, "text/html", http.StatusOK, []byte("<html><body><h1>Welcome to nginx!</h1></body></html>"), KindUnreadable, `"Welcome to nginx!"`},
		{"ddg binary", ddg, "text/html", http.StatusOK, []byte{0, 1, 2, 0xff}, KindUnreadable, "shape aci reads"},
		{"ddg down", ddg, "text/html", http.StatusBadGateway, []byte("bad gateway"), KindDown, "HTTP 502"},
		{"searxng json off", searx, "application/json", http.StatusForbidden, []byte("<html>403 Forbidden</html>"), KindRefused, "search.formats"},
		{"searxng 429", searx, "application/json", http.StatusTooManyRequests, []byte("Too Many Requests"), KindRateLimited, "HTTP 429"},
		{"searxng html", searx, "application/json", http.StatusOK, []byte("<!DOCTYPE html><html><body>SearXNG</body></html>"), KindUnreadable, "did not answer JSON"},
		{"searxng engines down", searx, "application/json", http.StatusOK, fixture(t, "searxng_empty.json"), KindDown, "duckduckgo CAPTCHA"},
		{"searxng 500", searx, "application/json", http.StatusInternalServerError, nil, KindDown, "HTTP 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, tt.status, tt.ctype, tt.body, nil)
			_, err := tt.engine(srv.URL).Search(context.Background(), "q", "")
			var e *Error
			if !errors.As(err, &e) || e.Kind != tt.kind || !strings.Contains(e.Msg, tt.words) {
				t.Fatalf("error %v (%#v), want kind %s with %q", err, e, tt.kind, tt.words)
			}
		})
	}
}

func TestDuckDuckGoNoResults(t *testing.T) {
	srv, _ := serve(t, 200, "text/html", fixture(t, "ddg_noresults.html"), nil)
	page, err := (&DuckDuckGo{URL: srv.URL, Client: Client(0, nil)}).Search(context.Background(), "zzqqxxnotaword", "")
	if err != nil || len(page.Results) != 0 || page.Next != "" {
		t.Fatalf("%+v %v", page, err)
	}
}

func TestDuckDuckGoEnvOverride(t *testing.T) {
	t.Setenv(DuckDuckGoEnv, "http://127.0.0.1:1/html/")
	if got := (&DuckDuckGo{}).Endpoint(); got != "http://127.0.0.1:1/html/" {
		t.Fatal(got)
	}
	t.Setenv(DuckDuckGoEnv, "")
	if got := (&DuckDuckGo{}).Endpoint(); got != DuckDuckGoURL {
		t.Fatal(got)
	}
}

func TestSearXNG(t *testing.T) {
	srv, _ := serve(t, 200, "application/json", fixture(t, "searxng.json"), func(r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/search" || q.Get("q") != "golang context cancel" || q.Get("format") != "json" || q.Get("pageno") == "" {
			t.Errorf("request %s", r.URL)
		}
	})
	s := &SearXNG{URL: srv.URL, Client: Client(0, nil)}
	page, err := s.Search(context.Background(), "golang context cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Results) != 2 || page.Results[0].URL != "https://pkg.go.dev/context" || page.Results[1].Title != "Go Concurrency Patterns: Context" ||
		!strings.HasPrefix(page.Results[0].Snippet, "Package context defines") || page.Next != "2" {
		t.Fatalf("%+v (the magnet link must be left out)", page)
	}
	if !strings.HasPrefix(s.Name(), "SearXNG at 127.0.0.1:") {
		t.Error(s.Name())
	}
}

func TestSlowAndDownEngines(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer hang.Close()
	start := time.Now()
	_, err := (&SearXNG{URL: hang.URL, Client: Client(200*time.Millisecond, nil)}).Search(context.Background(), "q", "")
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindSlow || !strings.Contains(e.Msg, "did not answer within 200ms") {
		t.Fatalf("slow: %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatalf("the timeout took %s", time.Since(start))
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	_, err = (&DuckDuckGo{URL: closed.URL, Client: Client(0, nil)}).Search(context.Background(), "q", "")
	if !errors.As(err, &e) || e.Kind != KindDown || !strings.Contains(e.Msg, "connection refused") {
		t.Fatalf("down: %v", err)
	}
}

func TestClientRefusesAddressesAndOtherHosts(t *testing.T) {
	srv, n := serve(t, 200, "text/html", fixture(t, "ddg_results.html"), nil)
	refuse := func(ip netip.Addr) error {
		if ip.IsLoopback() {
			return errors.New("refused: loopback")
		}
		return nil
	}
	_, err := (&DuckDuckGo{URL: srv.URL, Client: Client(0, refuse)}).Search(context.Background(), "q", "")
	if err == nil || !strings.Contains(err.Error(), "refused: loopback") || n.Load() != 0 {
		t.Fatalf("%v, %d requests", err, n.Load())
	}
	redirect := httptest.NewServer(http.RedirectHandler("http://localhost:1/elsewhere", http.StatusFound))
	defer redirect.Close()
	_, err = (&DuckDuckGo{URL: redirect.URL, Client: Client(0, nil)}).Search(context.Background(), "q", "")
	if err == nil || !strings.Contains(err.Error(), "redirected to another host") {
		t.Fatal(err)
	}
}

func TestProviderSearch(t *testing.T) {
	var got map[string]any
	srv, _ := serve(t, 200, "application/json", fixture(t, "openai_search.json"), func(r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			t.Errorf("request %s %s", r.URL, r.Header.Get("Authorization"))
		}
		json.NewDecoder(r.Body).Decode(&got)
	})
	p := &Provider{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "gpt-4o-mini-search-preview", Client: Client(0, nil)}
	page, err := p.Search(context.Background(), "golang context cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	if got["model"] != "gpt-4o-mini-search-preview" || got["web_search_options"] == nil ||
		!strings.Contains(got["messages"].([]any)[0].(map[string]any)["content"].(string), "golang context cancel") {
		t.Errorf("request body %v", got)
	}
	want := []Result{
		{"context package - context - Go Packages", "https://pkg.go.dev/context?utm_source=openai",
			"context package: defines the Context type, which carries deadlines and cancellation signals across API boundaries."},
		{"Go Concurrency Patterns: Context - The Go Programming Language", "https://go.dev/blog/context?utm_source=openai",
			"Go Concurrency Patterns: Context: shows how a server cancels the goroutines of a request."},
	}
	if len(page.Results) != 2 || page.Results[0] != want[0] || page.Results[1] != want[1] || page.Next != "" {
		t.Fatalf("%+v", page)
	}
}

func TestProviderFailures(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		kind   string
		words  string
	}{
		{"unknown model", 404, `{"error":{"message":"The model ` + "`gpt-4o-mini-search-preview`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			KindRefused, "does not exist"},
		{"rate limit", 429, `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, KindRateLimited, "HTTP 429"},
		{"no citations", 200, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"I cannot browse.","refusal":null,"annotations":[]},"finish_reason":"stop","logprobs":null}]}`,
			KindUnreadable, "cited no pages"},
		{"garbage", 200, `<html>gateway</html>`, KindUnreadable, "did not answer a chat completion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, tt.status, "application/json", []byte(tt.body), nil)
			_, err := (&Provider{BaseURL: srv.URL, Model: "m", Client: Client(0, nil)}).Search(context.Background(), "q", "")
			var e *Error
			if !errors.As(err, &e) || e.Kind != tt.kind || !strings.Contains(e.Msg, tt.words) {
				t.Fatalf("error %v, want kind %s with %q", err, tt.kind, tt.words)
			}
		})
	}
}

func TestNativeModel(t *testing.T) {
	for base, want := range map[string]string{
		"https://api.openai.com/v1":          "gpt-4o-mini-search-preview",
		"https://openrouter.ai/api/v1":       "openai/gpt-4o-mini-search-preview",
		"http://localhost:11434/v1":          "",
		"https://api.deepseek.com":           "",
		"https://api.openai.com.evil.org/v1": "",
	} {
		if got := NativeModel(base); got != want {
			t.Errorf("NativeModel(%s) = %q, want %q", base, got, want)
		}
	}
}
