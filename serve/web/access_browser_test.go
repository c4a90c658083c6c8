package web_test

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/serve"
	"github.com/aci-dev/aci/serve/web"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/transcript"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"
)

// cookies is every cookie the browser holds, for any site.
func cookies(t *testing.T, ctx context.Context) []*network.Cookie {
	t.Helper()
	res, err := chromedp.CallBrowser(ctx, storage.GetCookies, storage.GetCookiesParams{})
	if err != nil {
		t.Fatalf("the browser's cookies: %v", err)
	}
	return res.Cookies
}

// apiHeaders records the Authorization and Cookie headers of the page's
// requests under /api/.
type apiHeaders struct {
	mu   sync.Mutex
	auth []string // one per API request: its Authorization header
	urls []string
}

func watchAPI(ctx context.Context) *apiHeaders {
	h := &apiHeaders{}
	go func() {
		for ev, err := range chromedp.Events(ctx, network.RequestWillBeSent) {
			if err != nil {
				return
			}
			if !strings.Contains(ev.Request.URL, "/api/") {
				continue
			}
			a, _ := ev.Request.Headers["Authorization"].(string)
			h.mu.Lock()
			h.auth, h.urls = append(h.auth, a), append(h.urls, ev.Request.URL)
			h.mu.Unlock()
		}
	}()
	return h
}

// The token stays in the tab: it comes in the address's fragment, leaves
// the address bar, lives in the origin's storage and goes out only as the
// Authorization header of API calls and the event stream. No cookie is
// set, the page's files load without it, and a reload without the
// fragment still works.
func TestPageTokenStaysInTab(t *testing.T) {
	ctx := browser(t)
	ai := fakeai.New(t, fakeai.Reply{Content: "Hello from the model."})
	base, token := pageServer(t, ai, t.TempDir())
	w := watchPage(ctx, t)
	h := watchAPI(ctx)

	showPage(t, ctx, base, token)
	if loc := eval[string](t, ctx, `location.href`); strings.Contains(loc, "token") {
		t.Errorf("the token stayed in the address: %s", loc)
	}
	if got := eval[string](t, ctx, `localStorage.getItem('aci-serve-token')`); got != token {
		t.Errorf("the origin's storage holds %q", got)
	}
	ask(t, ctx, "Say hello")
	waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Hello from the model.'))`)

	// A reload without the fragment keeps working from storage.
	navigate(t, ctx, base+"/")
	waitFor(t, ctx, "the session listed after a reload", `!!document.querySelector('#sessions .sess')`)
	waitFor(t, ctx, "the conversation after a reload", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Hello from the model.'))`)
	if eval[bool](t, ctx, `!document.getElementById('banner').hidden`) {
		t.Errorf("a banner after the reload: %s", eval[string](t, ctx, `document.getElementById('banner').textContent`))
	}

	if c := eval[string](t, ctx, `document.cookie`); c != "" {
		t.Errorf("document.cookie is %q", c)
	}
	if cs := cookies(t, ctx); len(cs) != 0 {
		for _, c := range cs {
			t.Errorf("the browser holds a cookie %s for %s", c.Name, c.Domain)
		}
	}
	h.mu.Lock()
	events := false
	for i, a := range h.auth {
		if a != "Bearer "+token {
			t.Errorf("%s went with Authorization %q", h.urls[i], a)
		}
		events = events || strings.HasSuffix(h.urls[i], "/events")
	}
	if len(h.auth) == 0 || !events {
		t.Errorf("API requests seen: %v (the event stream among them: %v)", h.urls, events)
	}
	h.mu.Unlock()
	w.check(t, base)
}

// A page opened with a stale token, or none, says to open the address aci
// serve printed.
func TestPageStaleOrMissingToken(t *testing.T) {
	ctx := browser(t)
	base, _ := pageServer(t, fakeai.New(t), t.TempDir())
	shots := t.TempDir()
	for _, tc := range []struct{ name, url, says string }{
		{"stale", base + "/#token=an-earlier-token-0123456789", "not this server"},
		{"missing", base + "/", "has no token"},
	} {
		navigate(t, ctx, tc.url)
		if tc.name == "missing" {
			eval[bool](t, ctx, `localStorage.clear(), true`)
			if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
				t.Fatal(err)
			}
		}
		waitFor(t, ctx, tc.name+": the banner", `!document.getElementById('banner').hidden`)
		text := eval[string](t, ctx, `document.getElementById('banner').textContent`)
		if !strings.Contains(text, tc.says) || !strings.Contains(text, "Open the address that aci serve printed") || !strings.Contains(text, base+"/#token=…") {
			t.Errorf("%s: the banner says %q", tc.name, text)
		}
		screenshot(t, ctx, filepath.Join(shots, tc.name+".png"))
	}
	if cs := cookies(t, ctx); len(cs) != 0 {
		t.Errorf("cookies: %v", cs)
	}
	t.Logf("screenshots: %s", shots)
}

// A new session gets the model picked in the list the server gives.
func TestPagePicksModel(t *testing.T) {
	ctx := browser(t)
	ai := fakeai.New(t, fakeai.Reply{Content: "Answered by the other model."})
	ai.SetInfo(fakeai.Info{Models: []string{"fake-model", "other-model"}})
	base, token := pageServer(t, ai, t.TempDir())
	w := watchPage(ctx, t)
	navigate(t, ctx, base+"/#token="+token)
	waitFor(t, ctx, "the model list", `!document.getElementById('model').hidden && document.getElementById('model').options.length === 2`)
	if got := eval[string](t, ctx, `[...document.getElementById('model').options].map(o => o.textContent).join('|')`); got != "fake-model (default)|other-model" {
		t.Errorf("the models offered: %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("model"), "other-model"), chromedp.Click(chromedp.ID("new"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the new session with its model", `[...document.querySelectorAll('#meta .mono')].some(e => e.textContent === 'other-model')`)
	ask(t, ctx, "Which model?")
	waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Answered by the other model.'))`)
	if reqs := ai.Requests(); len(reqs) == 0 || reqs[len(reqs)-1].Model != "other-model" {
		t.Errorf("the model asked was not other-model")
	}
	shots := t.TempDir()
	screenshot(t, ctx, filepath.Join(shots, "model.png"))
	t.Logf("screenshots: %s", shots)
	w.check(t, base)
}

// End asks first; Keep keeps the session, End ends it (its transcript is
// released, and kept).
func TestPageEndsSession(t *testing.T) {
	ctx := browser(t)
	ai := fakeai.New(t, fakeai.Reply{Content: "First answer."})
	sessions := t.TempDir()
	base, token := pageServerIn(t, pageFactory(t, ai, sessions), t.TempDir())
	w := watchPage(ctx, t)
	showPage(t, ctx, base, token)
	ask(t, ctx, "Hello")
	waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('First answer.')) && document.getElementById('state').textContent === 'idle'`)
	id := eval[string](t, ctx, `decodeURIComponent(location.hash.slice(1))`)
	path := filepath.Join(sessions, id+".jsonl")
	held := func() bool {
		tr, err := transcript.Open(path, "")
		if err == nil {
			tr.Close()
			return false
		}
		if !errors.Is(err, transcript.ErrLocked) {
			t.Fatalf("transcript %s: %v", path, err)
		}
		return true
	}
	if !held() {
		t.Fatal("the live session does not hold its transcript")
	}

	shots := t.TempDir()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("end"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the question", `document.getElementById('confirm').open`)
	text := eval[string](t, ctx, `document.getElementById('confirm').textContent`)
	if !strings.Contains(text, "End this session?") || !strings.Contains(text, "transcript stays") || !strings.Contains(text, id) {
		t.Errorf("the question says %q", text)
	}
	screenshot(t, ctx, filepath.Join(shots, "end-question.png"))
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#confirm button[value="keep"]`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the question closed", `!document.getElementById('confirm').open`)
	if !held() || eval[string](t, ctx, `decodeURIComponent(location.hash.slice(1))`) != id {
		t.Error("Keep it ended the session")
	}

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("end"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the question", `document.getElementById('confirm').open`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#confirm button[value="end"]`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the session closed in the page", `location.hash.length <= 1 && document.getElementById('end').hidden && !document.getElementById('toast').hidden`)
	if got := eval[string](t, ctx, `document.getElementById('toast').textContent`); !strings.Contains(got, "ended") {
		t.Errorf("the page says %q", got)
	}
	if held() {
		t.Error("the ended session still holds its transcript")
	}
	screenshot(t, ctx, filepath.Join(shots, "ended.png"))
	t.Logf("screenshots: %s", shots)
	w.check(t, base)
}

// startAt runs a server with f and token on addr until the returned stop.
func startAt(t *testing.T, f *session.Factory, workdir, token, addr string) func() {
	t.Helper()
	srv, err := serve.New(serve.Config{Factory: f, Workdir: workdir, Page: web.Handler(), Token: token, Redact: testSecrets.Redact})
	if err != nil {
		t.Fatal(err)
	}
	var ln net.Listener
	for i := 0; ; i++ { // the port of a server just stopped may be busy a moment
		if ln, err = net.Listen("tcp", addr); err == nil || i == 50 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// freeAddr is a loopback address no one listens on, for a server that
// stops and starts again on it.
func freeAddr(t *testing.T) string {
	t.Helper()
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	return probe.Addr().String()
}

// The page says plainly when its server is gone, when it came back as a
// new run, and when it came back with a new token.
func TestPageServerGoneAndRestarted(t *testing.T) {
	ctx := browser(t)
	ai := fakeai.New(t, fakeai.Reply{Content: "Still here."})
	f, workdir := pageFactory(t, ai, t.TempDir()), t.TempDir()
	addr := freeAddr(t)
	base := "http://" + addr
	const token = "first-run-token-0123456789"
	stop := startAt(t, f, workdir, token, addr)
	shots := t.TempDir()

	showPage(t, ctx, base, token)
	ask(t, ctx, "Are you there?")
	waitFor(t, ctx, "the answer and a live stream", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Still here.')) && document.getElementById('conn').classList.contains('live')`)

	banner := func(what, says string) {
		t.Helper()
		waitFor(t, ctx, what, `!document.getElementById('banner').hidden && document.getElementById('banner').textContent.includes(`+jsString(says)+`)`)
		screenshot(t, ctx, filepath.Join(shots, strings.ReplaceAll(what, " ", "-")+".png"))
	}
	stop()
	banner("server gone", "aci serve is not answering")

	// Back, the same token: a new run.
	stop = startAt(t, f, workdir, token, addr)
	banner("server restarted", "aci serve was restarted.")
	waitFor(t, ctx, "the stream live again", `document.getElementById('conn').classList.contains('live')`)

	// Back with a new token: the page says to open the new address.
	stop()
	banner("server gone again", "aci serve is not answering")
	startAt(t, f, workdir, "second-run-token-0123456789", addr)
	banner("new token", "aci serve was restarted with a new token")
	if text := eval[string](t, ctx, `document.getElementById('banner').textContent`); !strings.Contains(text, "Open the address that aci serve printed") {
		t.Errorf("the banner says %q", text)
	}
	t.Logf("screenshots: %s", shots)
}
