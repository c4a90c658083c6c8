package search

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestChainFallsThroughAndCaches(t *testing.T) {
	down, _ := serve(t, 503, "text/plain", []byte("down"), nil)
	ddg, n := serve(t, 200, "text/html", fixture(t, "ddg_results.html"), nil)
	c := NewChain(&SearXNG{URL: down.URL, Client: Client(0, nil)}, &DuckDuckGo{URL: ddg.URL, Client: Client(0, nil)})
	a, err := c.Search(context.Background(), "golang  context cancel", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Engine != "DuckDuckGo" || len(a.Page.Results) != 3 || len(a.Failed) != 1 || !strings.Contains(a.Failed[0], "HTTP 503") || a.Cached {
		t.Fatalf("%+v", a)
	}
	b, _ := c.Search(context.Background(), "Golang context cancel", nil)
	if !b.Cached || b.Engine != "DuckDuckGo" || n.Load() != 1 {
		t.Fatalf("the same query sent a request again (%d) or was not cached: %+v", n.Load(), b)
	}
}

func TestChainAllFail(t *testing.T) {
	rl, _ := serve(t, 429, "text/plain", nil, nil)
	c := NewChain(&DuckDuckGo{URL: rl.URL, Client: Client(0, nil)})
	a, err := c.Search(context.Background(), "q", nil)
	if err != nil || a.Engine != "" || len(a.Failed) != 1 || !strings.Contains(a.Failed[0], "DuckDuckGo is rate-limiting") {
		t.Fatalf("%+v %v", a, err)
	}
}

func TestChainGate(t *testing.T) {
	ddg, n := serve(t, 200, "text/html", fixture(t, "ddg_results.html"), nil)
	c := NewChain(&DuckDuckGo{URL: ddg.URL, Client: Client(0, nil)})
	a, _ := c.Search(context.Background(), "q", func(string) error { return errors.New("denied by a rule") })
	if a.Engine != "" || n.Load() != 0 || !strings.Contains(a.Failed[0], "denied by a rule") {
		t.Fatalf("%+v, %d requests", a, n.Load())
	}
}
