package ui

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The model searches the web from the REPL and opens a result: the person
// sees both calls in words, and the page reaches the model.
func TestREPLSearchAndOpen(t *testing.T) {
	t.Parallel()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><title>Context</title></head><body><main><p>Cancel with a CancelFunc.</p></main></body></html>"))
	}))
	t.Cleanup(page.Close)
	fixture, err := os.ReadFile(filepath.Join("..", "tools", "search", "testdata", "ddg_results.html"))
	if err != nil {
		t.Fatal(err)
	}
	results := strings.ReplaceAll(string(fixture), "https%3A%2F%2Fpkg.go.dev%2Fcontext", url.QueryEscape(page.URL+"/context"))
	ddg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		w.Write([]byte(results))
	}))
	t.Cleanup(ddg.Close)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "search", "target": "golang context cancel"}})},
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "search_1", Action: "open", Params: map[string]any{"n": 1}})},
		fakeai.Reply{Content: "Use the CancelFunc."},
	)
	s := readyREPL(t, srv, []string{"ACI_SEARCH_DDG_URL=" + ddg.URL + "/html/", "XDG_CONFIG_HOME=" + t.TempDir()})
	s.typeLine("how do I cancel a context?")
	scr := s.waitFor("Use the CancelFunc.")
	for _, want := range []string{"search the web for golang context cancel", "fetch " + page.URL + "/context"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the screen lacks %q:\n%s", want, scr)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !mentions(reqs[1], "1. context package - context - Go Packages") || !mentions(reqs[2], "Cancel with a CancelFunc.") {
		t.Fatalf("%d requests; the results or the page did not reach the model", len(reqs))
	}
}
