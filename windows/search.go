package windows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/output"
	"github.com/aci-dev/aci/tools/search"
)

// SearchApp opens search windows: a query's results from the first of the
// chain's engines that answers, numbered, each openable as a web_fetch
// window. The chain is the session's, so its cache is too.
func SearchApp(chain *search.Chain) func(*Env) App {
	return func(env *Env) App {
		return App{
			Name:   "search",
			Desc:   "search the web",
			Target: "query",
			Open: func(ctx context.Context, id, target string) (Window, string, error) {
				w := &searchWindow{env: env, id: id, chain: chain}
				return openOn(w, target, "no query yet; use search(query)", func(t string) Result { return w.search(ctx, t) })
			},
		}
	}
}

type searchWindow struct {
	env   *Env
	id    string
	chain *search.Chain

	mu      sync.Mutex
	query   string
	engine  string
	results []search.Result
	next    string   // the engine's cursor for more, "" when there is none
	failed  []string // why engines before it (or all) could not answer
}

func (w *searchWindow) ID() string  { return w.id }
func (w *searchWindow) App() string { return "search" }
func (w *searchWindow) Close()      {}

func (w *searchWindow) Title() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.query
}

func (w *searchWindow) Actions() []Action {
	return []Action{
		{ID: "search", Desc: "search the web", Mode: Sync, Run: w.searchAction, Params: []Param{{Name: "query", Type: String, Required: true}}},
		{ID: "more", Desc: "the next results", Mode: Sync, Run: w.more},
		{ID: "open", Desc: "open result n as a web_fetch window", Mode: Sync, Run: w.open, Params: []Param{{Name: "n", Type: Integer, Required: true}}},
		closeAction(""),
	}
}

func (w *searchWindow) View() View {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.query == "" {
		return View{Content: "no search yet"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "search: %s\n", w.query)
	if w.engine == "" {
		b.WriteString("no search engine could answer:\n")
		for _, f := range w.failed {
			b.WriteString("- " + f + "\n")
		}
		return View{Content: w.env.Secrets.Redact(output.Truncate(strings.TrimSuffix(b.String(), "\n"), w.env.OutputLimit))}
	}
	fmt.Fprintf(&b, "engine: %s", w.engine)
	if len(w.failed) > 0 {
		fmt.Fprintf(&b, " (before it: %s)", strings.Join(w.failed, "; "))
	}
	b.WriteString("\n")
	if len(w.results) == 0 {
		b.WriteString("\nno results")
	}
	for i, r := range w.results {
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, r.Title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	if w.next != "" {
		b.WriteString("\n[more: more()]")
	}
	return View{Content: w.env.Secrets.Redact(output.Truncate(strings.TrimSuffix(b.String(), "\n"), w.env.OutputLimit))}
}

func (w *searchWindow) searchAction(ctx context.Context, args Args) Result {
	return w.search(ctx, args.String("query"))
}

// gate is what every engine's request passes: the person's deny rules on
// fetches judge the engine's URL.
func (w *searchWindow) gate(endpoint string) error {
	if r := w.env.denied("fetch", "fetch "+endpoint); r != nil {
		return errors.New(r.Text)
	}
	return nil
}

func (w *searchWindow) search(ctx context.Context, query string) Result {
	query = strings.Join(strings.Fields(query), " ")
	if query == "" {
		return Fail("empty query: give the words to search for")
	}
	if w.env.Secrets.Contains(query) || w.env.URLSecrets.Contains(query) {
		// A search engine never needs a credential: no question, no request.
		return Result{Status: protocol.StatusDenied, Text: "the query holds a secret (the API key, a credential variable or a .env value), " +
			"which would go to a search engine: search without it"}
	}
	ans, err := w.chain.Search(ctx, query, w.gate)
	if err != nil {
		return Fail("search stopped: %v", err)
	}
	w.mu.Lock()
	w.query, w.engine, w.results, w.next, w.failed = query, ans.Engine, ans.Page.Results, ans.Page.Next, ans.Failed
	w.mu.Unlock()
	if ans.Engine == "" {
		return Fail("%s", w.env.Secrets.Redact("no search engine could answer: "+strings.Join(ans.Failed, "; ")))
	}
	from := ""
	if ans.Cached {
		from = ", from this session's cache"
	}
	return OK("%d results from %s%s", len(ans.Page.Results), ans.Engine, from)
}

func (w *searchWindow) more(ctx context.Context, _ Args) Result {
	w.mu.Lock()
	query, engine, next, have := w.query, w.engine, w.next, len(w.results)
	w.mu.Unlock()
	switch {
	case engine == "":
		return Fail("no results yet: search first")
	case next == "":
		return Fail("no more results: %s gave all it has for %q", engine, query)
	}
	ans, err := w.chain.More(ctx, engine, query, next, w.gate)
	if err != nil {
		return Fail("%s", w.env.Secrets.Redact(fmt.Sprintf("no more results: %v", err)))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.query != query || w.next != next {
		return Fail("the window searched again meanwhile; see its results")
	}
	w.results = append(w.results, ans.Page.Results...)
	w.next = ans.Page.Next
	if len(ans.Page.Results) == 0 {
		w.next = ""
		return OK("no more results from %s", engine)
	}
	return OK("results %d to %d from %s", have+1, len(w.results), engine)
}

func (w *searchWindow) open(ctx context.Context, args Args) Result {
	n := args.Int("n", 0)
	w.mu.Lock()
	count := len(w.results)
	var link string
	if n >= 1 && n <= count {
		link = w.results[n-1].URL
	}
	w.mu.Unlock()
	if link == "" {
		if count == 0 {
			return Fail("no results to open: search first")
		}
		return Fail("result %d does not exist: there are %d results", n, count)
	}
	if w.env.openWindow == nil {
		return Fail("this window cannot open others")
	}
	return w.env.openWindow(ctx, "web_fetch", link)
}
