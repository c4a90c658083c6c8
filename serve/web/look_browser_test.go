package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/serve"
	"github.com/aci-dev/aci/session"
)

// loggedServer is pageServerIn with the server's log kept.
func loggedServer(t *testing.T, f *session.Factory, workdir string) (string, string, *testutil.SyncBuffer) {
	t.Helper()
	logs := &testutil.SyncBuffer{}
	base, token := servePage(t, serve.Config{Factory: f, Workdir: workdir, Token: "look-test-token-0123456789abcdef", Log: logs})
	return base, token, logs
}

// A session another writer holds (a terminal's REPL) is shown on the page
// from its transcript, read without its lock: not left at "Loading…".
func TestPageViewsALockedSession(t *testing.T) {
	ctx := browser(t)
	workdir := t.TempDir()
	ai := fakeai.New(t, fakeai.Reply{Content: "Noted the lime."})
	f := pageFactory(t, ai, t.TempDir())
	// The other writer: a session of the same store, kept open.
	held, err := f.New(context.Background(), session.Options{Workdir: workdir})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if _, err := held.Ask(context.Background(), "remember the lime"); err != nil {
		t.Fatal(err)
	}
	base, token, _ := loggedServer(t, f, workdir)
	w := watchPage(ctx, t)
	navigate(t, ctx, base+"/#token="+token)
	waitFor(t, ctx, "the held session's turn", `[...document.querySelectorAll('.turn .q-text')].some(e => e.textContent === 'remember the lime')`)
	waitFor(t, ctx, "its answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Noted the lime.'))`)
	if got := eval[string](t, ctx, `document.getElementById('title').textContent`); got == "Loading…" {
		t.Errorf("the page is still loading")
	}
	if got := eval[string](t, ctx, `location.hash.slice(1)`); got != held.ID() {
		t.Errorf("the page opened %q, want the held session %s", got, held.ID())
	}
	if eval[bool](t, ctx, `!document.getElementById('toast').hidden`) {
		t.Errorf("a message: %s", eval[string](t, ctx, `document.getElementById('toast').textContent`))
	}
	w.check(t, base)
}

// An address with a new token pasted into an open tab (only the fragment
// changes) signs the page in; the token never goes in a request's path
// nor reaches the server's log.
func TestPagePastedAddressTakesItsToken(t *testing.T) {
	ctx := browser(t)
	workdir := t.TempDir()
	ai := fakeai.New(t, fakeai.Reply{Content: "Hello again."})
	base, token, logs := loggedServer(t, pageFactory(t, ai, t.TempDir()), workdir)
	h := watchAPI(ctx)
	navigate(t, ctx, base+"/")
	waitFor(t, ctx, "the sign-in banner", `!document.getElementById('banner').hidden && document.getElementById('banner').dataset.kind === 'signin'`)
	// Pasted into the same tab: a same-document navigation, a hashchange.
	navigate(t, ctx, base+"/#token="+token)
	waitFor(t, ctx, "the banner gone", `document.getElementById('banner').hidden`)
	if loc := eval[string](t, ctx, `location.href`); strings.Contains(loc, "token") {
		t.Errorf("the token stayed in the address: %s", loc)
	}
	ask(t, ctx, "Say hello")
	waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Hello again.'))`)
	h.mu.Lock()
	for _, u := range h.urls {
		if strings.Contains(u, token) || strings.Contains(u, "token") {
			t.Errorf("a request's address holds the token: %s", u)
		}
	}
	h.mu.Unlock()
	if l := logs.String(); strings.Contains(l, token) || !strings.Contains(l, "/api/sessions") {
		t.Errorf("the server's log:\n%s", l)
	}
}
