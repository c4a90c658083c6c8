//go:build unix

package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

// The page of a session the REPL serves shows the session's own mode and
// cost: after a plan turn not accepted and /mode default, "mode: default"
// and no Accept plan; after resuming, the header's cost counts the turns of
// the earlier run too (1,000 prompt tokens at $1 a million each turn).
func TestREPLServedPageShowsTheSessionsModeAndCost(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Plan:\n1. write plan.txt", PromptTokens: 1000},
		fakeai.Reply{Content: "second answer", PromptTokens: 1000},
	)
	ctx := testutil.Browser(t)
	work, home := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"prices": {"test-model": {"input": 1, "output": 0}}}`)
	run := func(args ...string) *pane {
		return startPaneIn(t, srv, work, home, nil, func(bin string) []string { return append([]string{bin}, args...) })
	}
	s := run("--permission-mode", "plan")
	s.waitPrompt()
	s.typeLine("plan it")
	s.waitFor("accept?")
	s.typeLine("n")
	s.waitPrompt()
	s.typeLine("/exit")
	s.exitStatus()

	s = run("--serve", "127.0.0.1:0", "--resume")
	scr := s.waitPrompt()
	url := strings.Fields(scr[strings.Index(scr, "web page: ")+len("web page: "):])[0]
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	testutil.PageWait(t, ctx, "the REPL's session open", `document.body.dataset.state === "idle" && !document.getElementById("mode").hidden`)
	s.typeLine("and now?")
	s.waitFor("second answer")
	s.waitPrompt()
	testutil.PageWait(t, ctx, "the second answer", `document.getElementById("log").textContent.includes("second answer")`)
	headWait(t, ctx, "the session's mode and cost")
	// Loaded afresh, the same.
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	testutil.PageWait(t, ctx, "the session again", `document.body.dataset.state === "idle" && document.getElementById("log").textContent.includes("second answer")`)
	headWait(t, ctx, "the session's mode and cost, reloaded")
}

// headWait waits for the page's header to show mode default, no Accept
// plan, and the two turns' cost; failing, it says what the header shows.
func headWait(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	const head = `document.getElementById("mode").value + "|" + document.getElementById("accept-plan").hidden + "|" + document.getElementById("usage").textContent`
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(wctx, chromedp.Poll[bool](`(`+head+`).match(/^default\|true\|.*\$0\.0020/) !== null`, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](head))
		t.Fatalf("%s: the header shows %q; want mode default, Accept plan hidden and $0.0020", what, got)
	}
}
