package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/chromedp/chromedp"
)

// TestPageSlashMenu: typing "/" in the message box lists the workspace's
// commands (built-ins, command files, a broken one with its problem);
// typing narrows the list, Tab takes one, and sending it runs its prompt.
func TestPageSlashMenu(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx := browser(t)
	workdir := t.TempDir()
	for rel, text := range map[string]string{
		".aci/commands/fix-issue.md":     "---\ndescription: fix a GitHub issue\nargument-hint: [number]\n---\nFix issue #$1 now.",
		".claude/commands/git/commit.md": "---\ndescription: commit the work\n---\nCommit: $ARGUMENTS",
		".aci/commands/broken.md":        "uses $ARGS",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(workdir, rel)), 0o755)
		os.WriteFile(filepath.Join(workdir, rel), []byte(text), 0o644)
	}
	ai := fakeai.New(t, fakeai.Reply{Content: "Fixed."})
	base, token := pageServer(t, ai, workdir)
	w := watchPage(ctx, t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/#token="+token)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the page", `document.getElementById('app') && !document.getElementById('app').hidden`)

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
