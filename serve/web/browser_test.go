package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/aci-dev/aci/internal/browsertest"
	"github.com/aci-dev/aci/internal/fakeai"
)

// browser starts a headless Chromium for the test (skipping it, saying
// why, where none is installed) and returns a tab's context.
func browser(t *testing.T) context.Context { return browsertest.Start(t) }

// openPage starts a server for workdir on the model ai, opens its page in
// the tab and waits for it to show.
func openPage(t *testing.T, ctx context.Context, ai *fakeai.Server, workdir string) {
	t.Helper()
	base, token := pageServer(t, ai, workdir)
	showPage(t, ctx, base, token)
}

// openWatched is openPage with the page watched (watchPage) from before
// it loads; it returns the watch and the server's base URL.
func openWatched(t *testing.T, ctx context.Context, ai *fakeai.Server, workdir string) (*watch, string) {
	t.Helper()
	base, token := pageServer(t, ai, workdir)
	w := watchPage(ctx, t)
	showPage(t, ctx, base, token)
	return w, base
}

// showPage opens the page of the server at base in the tab, signed in with
// token, and waits for it to show.
func showPage(t *testing.T, ctx context.Context, base, token string) {
	t.Helper()
	navigate(t, ctx, base+"/#token="+token)
	waitFor(t, ctx, "the page", `document.getElementById('app') && !document.getElementById('app').hidden`)
}

// navigate loads url in the tab.
func navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
}

// pickMode chooses mode in the header's selector, as a person does, and
// waits for the server's answer.
func pickMode(t *testing.T, ctx context.Context, mode string) {
	t.Helper()
	eval[bool](t, ctx, `(() => { const s = document.getElementById('mode'); s.value = `+jsString(mode)+`; s.dispatchEvent(new Event('change')); return true })()`)
	waitFor(t, ctx, mode+" mode on the server", `document.getElementById('mode').value === `+jsString(mode))
}
