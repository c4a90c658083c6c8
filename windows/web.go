package windows

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/fetch"
	"github.com/aci-dev/aci/tools/output"
)

// WebApp opens web_fetch windows: a page as readable text, in pages.
func WebApp(env *Env) App {
	return App{
		Name:   "web_fetch",
		Desc:   "read a web page as text, page by page",
		Target: "URL",
		Open: func(ctx context.Context, id, target string) (Window, string, error) {
			w := &webWindow{env: env, id: id}
			return openOn(w, target, "no page yet; use fetch(url)", func(t string) Result { return w.fetch(ctx, t) })
		},
	}
}

type webWindow struct {
	env *Env
	id  string

	mu    sync.Mutex
	page  fetch.WebPage
	pages []string
	cur   int // index into pages
}

func (w *webWindow) ID() string  { return w.id }
func (w *webWindow) App() string { return "web_fetch" }
func (w *webWindow) Close()      {}

func (w *webWindow) Title() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.page.URL
}

func (w *webWindow) Actions() []Action {
	return []Action{
		{ID: "fetch", Desc: "load a URL", Mode: Sync, Run: w.fetchAction, Params: []Param{{Name: "url", Type: String, Required: true}}},
		{ID: "page", Desc: "show page n (from 1)", Mode: Sync, Run: w.showPage, Params: []Param{{Name: "n", Type: Integer, Required: true}}},
		closeAction(""),
	}
}

// pageSize keeps one page well under the output limit.
func (w *webWindow) pageSize() int { return max(w.env.OutputLimit/3, 2000) }

func (w *webWindow) View() View {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pages) == 0 {
		return View{Content: "no page loaded"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s", w.page.URL)
	if w.page.Title != "" {
		fmt.Fprintf(&b, " — %s", w.page.Title)
	}
	fmt.Fprintf(&b, "\npage %d of %d", w.cur+1, len(w.pages))
	if w.page.Truncated {
		b.WriteString(" (the page was longer than 5 MB; the rest was not read)")
	}
	b.WriteString("\n\n")
	b.WriteString(w.pages[w.cur])
	if w.cur+1 < len(w.pages) {
		fmt.Fprintf(&b, "\n\n[more: page(n=%d)]", w.cur+2)
	}
	return View{Content: output.Truncate(b.String(), w.env.OutputLimit)}
}

func (w *webWindow) fetchAction(ctx context.Context, args Args) Result {
	return w.fetch(ctx, args.String("url"))
}

func (w *webWindow) fetch(ctx context.Context, url string) Result {
	url = strings.TrimSpace(url)
	if r := w.env.denied("fetch", "fetch "+url); r != nil {
		return *r
	}
	if why := fetch.SecretInURL(url, w.env.Secrets, w.env.URLSecrets); why != "" {
		req := ApprovalRequest{Kind: protocol.AskFetch, WindowID: w.id, Subject: "fetch " + w.env.Secrets.Redact(url), Reason: why}
		if r := w.env.ask(ctx, req); r != nil {
			return *r
		}
	}
	var refused *Result
	f := &fetch.Fetcher{Secrets: w.env.Secrets, CheckAddr: func(ip netip.Addr) error {
		if !fetch.InternalAddr(ip) {
			return nil
		}
		// A page can ask the model to fetch a cloud metadata endpoint or an
		// intranet service: the person decides.
		req := ApprovalRequest{Kind: protocol.AskFetch, WindowID: w.id, Subject: "fetch " + url + " (" + ip.String() + ")",
			Reason: "connects to a private or link-local address (" + ip.String() + ")"}
		if refused = w.env.ask(ctx, req); refused != nil {
			return errors.New("refused: " + req.Reason)
		}
		return nil
	}}
	page, err := f.Fetch(ctx, url)
	if refused != nil {
		return *refused
	}
	if err != nil {
		return Fail("%v", err)
	}
	pages := fetch.Paginate(page.Text, w.pageSize())
	w.mu.Lock()
	w.page, w.pages, w.cur = page, pages, 0
	w.mu.Unlock()
	return OK("fetched %s (%s, %d characters, %d pages); showing page 1", page.URL, page.ContentType, len(page.Text), len(pages))
}

func (w *webWindow) showPage(_ context.Context, args Args) Result {
	n := args.Int("n", 1)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pages) == 0 {
		return Fail("no page loaded: fetch a URL first")
	}
	if n < 1 || n > len(w.pages) {
		return Fail("page %d does not exist: there are %d pages", n, len(w.pages))
	}
	w.cur = n - 1
	return OK("showing page %d of %d", n, len(w.pages))
}

// internalAddr is fetch.InternalAddr: private, link-local, carrier NAT and
// the IPv6 forms that embed such an IPv4 address.
var internalAddr = fetch.InternalAddr
