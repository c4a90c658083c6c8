//go:build unix

package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/aci-dev/aci/internal/browsertest"
	"github.com/aci-dev/aci/internal/fakeai"
)

// The page watches the REPL's session (aci --serve): its turn shows live,
// a question answered on the page is said in the terminal, and one
// answered in the terminal is said on the page.
func TestREPLWatchedAndApprovedFromThePage(t *testing.T) {
	t.Parallel()
	srv, _, _ := twoWritesOutside(t)
	ctx := browsertest.Start(t)
	s := startREPL(t, srv, nil, "--serve", "127.0.0.1:0")
	scr := s.waitPrompt()
	openServedPage(t, ctx, scr)

	s.typeLine("write both files")
	browsertest.Wait(t, ctx, "the turn's question on the page", `[...document.querySelectorAll(".q-text")].some(q => q.textContent === "write both files")`)
	browsertest.Wait(t, ctx, "the first question", `!!document.querySelector(".approval:not(.settled) button.allow")`)
	s.waitFor("also asked on the web page")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(".approval:not(.settled) button.allow"))); err != nil {
		t.Fatal(err)
	}
	s.waitFor("✓ allowed from the web page")
	// The second is answered in the terminal; the page says so.
	s.waitUntil("the second question", func(scr string) bool { return strings.Count(scr, "allow? ›") == 2 })
	browsertest.Wait(t, ctx, "the second question on the page", `document.querySelectorAll(".approval").length === 2 && !!document.querySelector(".approval:not(.settled)")`)
	s.typeLine("y")
	browsertest.Wait(t, ctx, "who answered", `[...document.querySelectorAll(".approval.settled")].some(c => c.textContent.includes("answered in the terminal: allowed"))`)
	s.waitFor("both written")
	browsertest.Wait(t, ctx, "the answer and the actions", `document.getElementById("log").textContent.includes("both written") && document.querySelectorAll(".action.st-ok").length === 4`)
}

// A message sent from the page while the REPL's turn runs joins it: the
// page shows it in the turn, the terminal says it came from the page.
func TestREPLSteeredFromThePage(t *testing.T) {
	t.Parallel()
	srv := gateModel(t, "heard the page")
	ctx := browsertest.Start(t)
	s := startREPL(t, srv, nil, "--serve", "127.0.0.1:0")
	scr := s.waitPrompt()
	openServedPage(t, ctx, scr)
	s.typeLine("run the gate")
	srv.WaitRequests(2, waitLimit)
	browsertest.Wait(t, ctx, "the running turn", `document.body.dataset.state === "executing" && document.getElementById("input").placeholder.startsWith("Add to the running turn")`)
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("input"), "from the page\r")); err != nil {
		t.Fatal(err)
	}
	browsertest.Wait(t, ctx, "the toast", `document.getElementById("toast").textContent.includes("added to the running turn")`)
	os.WriteFile(filepath.Join(s.work, "go"), nil, 0o644)
	s.waitFor("added to the turn from the web page")
	browsertest.Wait(t, ctx, "the steered message in the turn", `[...document.querySelectorAll(".steer")].some(e => e.textContent.includes("from the page"))`)
	s.waitFor("heard the page")
	reqs := srv.Requests()
	if !mentions(reqs[len(reqs)-1], "from the page") {
		t.Errorf("the last request lacks the page's message")
	}
}

// openServedPage opens in the tab the page the REPL's screen scr names
// (/serve's address) and waits for the REPL's session to show.
func openServedPage(t *testing.T, ctx context.Context, scr string) {
	t.Helper()
	if pageAddr.FindStringSubmatch(scr) == nil {
		t.Fatalf("no address:\n%s", scr)
	}
	url := strings.Fields(scr[strings.Index(scr, "web page: ")+len("web page: "):])[0]
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	browsertest.Wait(t, ctx, "the REPL's session open", `document.body.dataset.state === "idle" && !document.getElementById("state").hidden && !document.getElementById("mode").hidden`)
}

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
	ctx := browsertest.Start(t)
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
	s.exit()

	s = run("--serve", "127.0.0.1:0", "--resume")
	scr := s.waitPrompt()
	openServedPage(t, ctx, scr)
	s.exchange("and now?", "second answer")
	browsertest.Wait(t, ctx, "the second answer", `document.getElementById("log").textContent.includes("second answer")`)
	headWait(t, ctx, "the session's mode and cost")
	// Loaded afresh, the same.
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	browsertest.Wait(t, ctx, "the session again", `document.body.dataset.state === "idle" && document.getElementById("log").textContent.includes("second answer")`)
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
