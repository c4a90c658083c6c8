package web_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/chromedp/chromedp"
)

// The page shows what the person typed, not what aci added for the model
// (plan mode's note, a command's prompt, /init's): the session list, the
// title and the turn's question, live and on a server started afterwards
// (the turns read back from the event log).
func TestPageShowsTypedWords(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx := browser(t)
	workdir := t.TempDir()
	os.MkdirAll(filepath.Join(workdir, ".aci", "commands"), 0o755)
	os.WriteFile(filepath.Join(workdir, ".aci", "commands", "fix-issue.md"), []byte("---\ndescription: fix an issue\n---\nFix issue #$1 ($ARGUMENTS) with care."), 0o644)
	ai := fakeai.New(t, fakeai.Reply{Content: "Plan: 1. read calc"}, fakeai.Reply{Content: "Fixed."}, fakeai.Reply{Content: "Wrote it."})
	f := pageFactory(t, ai, t.TempDir())
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	const token = "typed-words-token-0123456789"
	stop := startAt(t, f, workdir, token, addr)
	base := "http://" + addr
	w := watchPage(ctx, t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#token="+token)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the page", `!document.getElementById('app').hidden`)

	typed := []string{"how would you fix calc?", "/fix-issue 9 low", "/init"}
	answers := []string{"Plan: 1. read calc", "Fixed.", "Wrote it."}
	ids := make([]string, len(typed))
	for i, q := range typed {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("new"))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "a new session", `location.hash.length > 1 && !document.getElementById('mode').hidden && document.querySelectorAll('.turn').length === 0`)
		ids[i] = eval[string](t, ctx, `decodeURIComponent(location.hash.slice(1))`)
		if i == 0 {
			eval[bool](t, ctx, `(() => { const s = document.getElementById('mode'); s.value = 'plan'; s.dispatchEvent(new Event('change')); return true })()`)
			waitFor(t, ctx, "plan mode on the server", `document.getElementById('mode').value === 'plan'`)
		}
		ask(t, ctx, q)
		waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes(`+jsString(answers[i])+`)) && document.getElementById('state').textContent === 'idle'`)
		pageShowsTyped(t, ctx, "live", q)
	}
	reqs := ai.WaitRequests(3, 10*time.Second)
	if len(reqs) != 3 || !strings.Contains(reqs[0].LastUser(), "[aci: permission mode plan") || !strings.Contains(reqs[1].LastUser(), "Fix issue #9 (9 low) with care.") ||
		!strings.Contains(reqs[2].LastUser(), "Study this project") {
		t.Fatalf("the model did not get aci's additions: %+v", reqs)
	}
	listShowsTyped(t, ctx, "live", typed)
	// Reloaded, the same server: the open session's turns from its info.
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the page again", `!document.getElementById('app').hidden && document.querySelectorAll('.turn').length === 1`)
	pageShowsTyped(t, ctx, "reloaded", typed[2])
	listShowsTyped(t, ctx, "reloaded", typed)
	w.check(t, base)

	// A server started afterwards: each session read back from its events.
	stop()
	base, tok := pageServerIn(t, f, workdir)
	for i, q := range typed {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#token="+tok)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the page", `!document.getElementById('app').hidden`)
		eval[bool](t, ctx, `(location.hash = `+jsString(ids[i])+`, true)`)
		waitFor(t, ctx, "the stored session", `document.querySelectorAll('.turn').length === 1 && [...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes(`+jsString(answers[i])+`))`)
		pageShowsTyped(t, ctx, "stored", q)
	}
	listShowsTyped(t, ctx, "stored", typed)
}

// pageShowsTyped checks the open session's title, the tab's title and its
// one turn's question say q, with none of aci's additions on the page.
func pageShowsTyped(t *testing.T, ctx context.Context, when, q string) {
	t.Helper()
	waitFor(t, ctx, when+": the question "+q, `(document.querySelector('.turn .q-text')||{}).textContent === `+jsString(q))
	waitFor(t, ctx, when+": the title "+q, `document.getElementById('title').textContent === `+jsString(q)+` && document.title.includes(`+jsString(q)+`)`)
	pageLacksAdditions(t, ctx, when)
}

// listShowsTyped checks the session list names the sessions by typed.
func listShowsTyped(t *testing.T, ctx context.Context, when string, typed []string) {
	t.Helper()
	want := make([]string, len(typed))
	for i, q := range typed {
		want[len(typed)-1-i] = q // newest first
	}
	js := `[...document.querySelectorAll('#sessions .sess-title')].map(e => e.textContent).join('\n')`
	waitFor(t, ctx, when+": the list "+strings.Join(want, ", "), js+` === `+jsString(strings.Join(want, "\n")))
	pageLacksAdditions(t, ctx, when)
}

func pageLacksAdditions(t *testing.T, ctx context.Context, when string) {
	t.Helper()
	text := eval[string](t, ctx, `document.body.innerText + '\n' + document.title`)
	for _, a := range []string{"[aci:", "permission mode plan", "Fix issue #9", "Study this project"} {
		if strings.Contains(text, a) {
			t.Errorf("%s: the page shows aci's addition %q:\n%s", when, a, text)
		}
	}
}
