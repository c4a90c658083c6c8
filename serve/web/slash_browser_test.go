package web_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
	"github.com/chromedp/chromedp"
)

// TestPageSlashMenu: typing "/" in the message box lists the workspace's
// commands (built-ins, command files, a broken one with its problem);
// typing narrows the list, Tab takes one, and sending it runs its prompt.
func TestPageSlashMenu(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx := browser(t)
	workdir := t.TempDir()
	testfs.Write(t, workdir, 0o644, map[string]string{
		".aci/commands/fix-issue.md":     "---\ndescription: fix a GitHub issue\nargument-hint: [number]\n---\nFix issue #$1 now.",
		".claude/commands/git/commit.md": "---\ndescription: commit the work\n---\nCommit: $ARGUMENTS",
		".aci/commands/broken.md":        "uses $ARGS",
	})
	ai := fakeai.New(t, fakeai.Reply{Content: "Fixed."})
	w, base := openWatched(t, ctx, ai, workdir)

	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("input"), "/")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the menu", `!document.getElementById('slash-menu').hidden && document.querySelectorAll('.slash-item').length >= 5`)
	items := eval[string](t, ctx, `[...document.querySelectorAll('.slash-item')].map(e => e.textContent).join('\n')`)
	for _, want := range []string{"/init", "/review [TARGET]", "/fix-issue [number]fix a GitHub issueproject", "/git:commit", "/brokencannot run: unknown placeholder $ARGS"} {
		if !strings.Contains(items, want) {
			t.Errorf("the menu lacks %q:\n%s", want, items)
		}
	}
	screenshot(t, ctx, filepath.Join(t.TempDir(), "slash.png"))
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("input"), "fi")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the menu narrowed", `[...document.querySelectorAll('.slash-item')].map(e => e.dataset.name).join(',') === 'fix-issue'`)
	if err := chromedp.Do(ctx, key("Tab", "", 0)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `document.getElementById('input').value`); got != "/fix-issue " {
		t.Fatalf("after Tab the box holds %q", got)
	}
	waitFor(t, ctx, "the menu closed", `document.getElementById('slash-menu').hidden`)
	ask(t, ctx, "42")
	waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Fixed.'))`)
	if got := eval[string](t, ctx, `document.querySelector('.turn .q-text').textContent`); got != "/fix-issue 42" {
		t.Errorf("the question shows as %q", got)
	}
	if reqs := ai.WaitRequests(1, 10*time.Second); len(reqs) == 0 || !strings.HasPrefix(reqs[0].LastUser(), "Fix issue #42 now.") {
		t.Errorf("the model got %+v", reqs)
	}
	w.check(t, base)
}

// The page shows what the person typed, not what aci added for the model
// (plan mode's note, a command's prompt, /init's): the session list, the
// title and the turn's question, live, reloaded and on a server started
// afterwards (the turns read back from the event log); a rewind puts the
// command back in the box as typed.
func TestPageShowsTypedWords(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx := browser(t)
	workdir := t.TempDir()
	testfs.Write(t, workdir, 0o644, map[string]string{".aci/commands/fix-issue.md": "---\ndescription: fix an issue\n---\nFix issue #$1 ($ARGUMENTS) with care."})
	typed := []string{"how would you fix calc?", "/fix-issue 9 low", "/init"}
	answers := []string{"Plan: 1. read calc", "Fixed.", "Wrote it."}
	ai := fakeai.New(t, fakeai.Reply{Content: answers[0]}, fakeai.Reply{Content: answers[1]}, fakeai.Reply{Content: answers[2]})
	f := pageFactory(t, ai, t.TempDir())
	addr, token := freeAddr(t), "typed-words-token-0123456789"
	stop := startAt(t, f, workdir, token, addr)
	base := "http://" + addr
	w := watchPage(ctx, t)
	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	lacksAdditions := func(when string) {
		t.Helper()
		text := eval[string](t, ctx, `document.body.innerText + '\n' + document.title`)
		for _, a := range []string{"[aci:", "permission mode plan", "Fix issue #9", "Study this project"} {
			if strings.Contains(text, a) {
				t.Errorf("%s: the page shows aci's addition %q:\n%s", when, a, text)
			}
		}
	}
	// shows checks the open session's title, the tab's title and its one
	// turn's question say q.
	shows := func(when, q string) {
		t.Helper()
		waitFor(t, ctx, when+": the question "+q, `(document.querySelector('.turn .q-text')||{}).textContent === `+jsString(q))
		waitFor(t, ctx, when+": the title "+q, `document.getElementById('title').textContent === `+jsString(q)+` && document.title.includes(`+jsString(q)+`)`)
		lacksAdditions(when)
	}
	// listed checks the session list names the sessions as typed, newest first.
	listed := func(when string) {
		t.Helper()
		want := []string{typed[2], typed[1], typed[0]}
		waitFor(t, ctx, when+": the list "+strings.Join(want, ", "),
			`[...document.querySelectorAll('#sessions .sess-title')].map(e => e.textContent).join('\n') === `+jsString(strings.Join(want, "\n")))
		lacksAdditions(when)
	}

	do("open the page", chromedp.Navigate(base+"/#token="+token))
	waitFor(t, ctx, "the page", `!document.getElementById('app').hidden`)
	ids := make([]string, len(typed))
	for i, q := range typed {
		do("new session", chromedp.Click(chromedp.ID("new")))
		waitFor(t, ctx, "a new session", `location.hash.length > 1 && !document.getElementById('mode').hidden && document.querySelectorAll('.turn').length === 0`)
		ids[i] = eval[string](t, ctx, `decodeURIComponent(location.hash.slice(1))`)
		if i == 0 {
			eval[bool](t, ctx, `(() => { const s = document.getElementById('mode'); s.value = 'plan'; s.dispatchEvent(new Event('change')); return true })()`)
			waitFor(t, ctx, "plan mode on the server", `document.getElementById('mode').value === 'plan'`)
		}
		ask(t, ctx, q)
		waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes(`+jsString(answers[i])+`)) && document.getElementById('state').textContent === 'idle'`)
		shows("live", q)
	}
	reqs := ai.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[0].LastUser(), "[aci: permission mode plan") || !strings.Contains(reqs[1].LastUser(), "Fix issue #9 (9 low) with care.") ||
		!strings.Contains(reqs[2].LastUser(), "Study this project") {
		t.Fatalf("the model did not get aci's additions: %+v", reqs)
	}
	listed("live")
	// Reloaded, the same server: the open session's turns from its info.
	do("reload", chromedp.Reload())
	waitFor(t, ctx, "the page again", `!document.getElementById('app').hidden && document.querySelectorAll('.turn').length === 1`)
	shows("reloaded", typed[2])
	listed("reloaded")
	w.check(t, base)

	// A server started afterwards: each session read back from its events.
	stop()
	base, token = pageServerIn(t, f, workdir)
	for i, q := range typed {
		do("open the page", chromedp.Navigate(base+"/#token="+token))
		waitFor(t, ctx, "the page", `!document.getElementById('app').hidden`)
		eval[bool](t, ctx, `(location.hash = `+jsString(ids[i])+`, true)`)
		waitFor(t, ctx, "the stored session", `document.querySelectorAll('.turn').length === 1 && [...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes(`+jsString(answers[i])+`))`)
		shows("stored", q)
	}
	listed("stored")

	// Rewound to before /fix-issue, the box holds it as typed.
	eval[bool](t, ctx, `(location.hash = `+jsString(ids[1])+`, true)`)
	waitFor(t, ctx, "the command's session", `(document.querySelector('.turn .q-text')||{}).textContent === `+jsString(typed[1]))
	do("rewind", chromedp.Click(chromedp.CSS(`.turn[data-turn="1"] button.rewind`)))
	waitFor(t, ctx, "the choices", `!!document.querySelector('.rewind-menu .rw-both')`)
	do("files and conversation", chromedp.Click(chromedp.CSS(`.rewind-menu .rw-both`)))
	waitFor(t, ctx, "the command back in the box", `document.querySelectorAll('.turn').length === 0 && document.getElementById('input').value === `+jsString(typed[1]))
}
