package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/browsertest"
	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/serve"
	"github.com/aci-dev/aci/serve/web"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/secrets"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

func call(window, action string, params map[string]any) fakeai.Call {
	return fakeai.Call{Window: window, Action: action, Params: params}
}

// testKey is the API key the sessions send the fake model.
const testKey = "sk-page-test-key-0123456789abcdef"

// The answer of the first turn: Markdown, and markup that must stay text.
const hostileAnswer = "The check says **hi-from-command**.\n\n" +
	"<script>window.pwned = 1</script>\n<img src=x onerror=\"window.pwned = 2\">\n\n" +
	"[run me](javascript:window.pwned=3)\n\n```sh\necho done\n```"

// pageServer runs aci serve with the page, over loopback, with the fake
// model; it returns the server's base URL and its token.
func pageServer(t *testing.T, ai *fakeai.Server, workdir string) (string, string) {
	t.Helper()
	return pageServerIn(t, pageFactory(t, ai, t.TempDir()), workdir)
}

// testSecrets is the set of secrets of the page tests' sessions and
// servers, as main builds one for the process.
var testSecrets = secrets.NewRedactor()

// pageFactory makes the sessions of a page test, their transcripts in dir.
func pageFactory(t *testing.T, ai *fakeai.Server, dir string) *session.Factory {
	testSecrets.Add(testKey)
	return session.NewFactory(session.Config{
		Client:          session.ClientConfig{BaseURL: ai.URL, APIKey: testKey, Model: "fake-model", Stream: true},
		Agent:           session.AgentConfig{BasePrompt: "You are aci, in a test.", MaxSteps: 10, CompressTokens: 1 << 30, Redact: testSecrets.Redact},
		Secrets:         testSecrets,
		OutputLimit:     30000,
		SessionsDir:     dir,
		ApprovalTimeout: time.Minute,
	})
}

// pageServerIn is pageServer with the sessions of f.
func pageServerIn(t *testing.T, f *session.Factory, workdir string) (string, string) {
	t.Helper()
	return servePage(t, serve.Config{Factory: f, Workdir: workdir, Token: "page-test-token-0123456789"})
}

// servePage runs the server of cfg with the page and the tests' redactor
// until the test ends; it returns its base URL and token.
func servePage(t *testing.T, cfg serve.Config) (string, string) {
	t.Helper()
	cfg.Page, cfg.Redact = web.Handler(), testSecrets.Redact
	srv, err := serve.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		stop() // the sessions and event streams end, then the server
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String(), srv.Token()
}

// key sends one key to the focused element, with modifiers (8: Shift). A
// key with text also sends the character, as a real key press does.
func key(name, text string, modifiers int64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		down := input.DispatchKeyEventTypeRawKeyDown
		if text != "" {
			down = input.DispatchKeyEventTypeKeyDown
		}
		for _, typ := range []input.DispatchKeyEventType{down, input.DispatchKeyEventTypeKeyUp} {
			p := input.DispatchKeyEventParams{Type: typ, Key: name, Code: name, Modifiers: modifiers,
				WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13}
			if typ != input.DispatchKeyEventTypeKeyUp {
				p.Text, p.UnmodifiedText = text, text
			}
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, p); err != nil {
				return err
			}
		}
		return nil
	})
}

// ask types text in the message box and presses Enter.
func ask(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("input"), text), key("Enter", "", 0)); err != nil {
		t.Fatalf("sending %q: %v", text, err)
	}
}

// watch records the page's console errors and the addresses of its requests.
type watch struct {
	mu       sync.Mutex
	errors   []string
	requests []string
}

func watchPage(ctx context.Context, t *testing.T) *watch {
	w := &watch{}
	console := chromedp.Console(ctx)
	requests := chromedp.Events(ctx, network.RequestWillBeSent)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning {
				w.mu.Lock()
				w.errors = append(w.errors, fmt.Sprintf("%s: %s (%s:%d)", m.Type, m, m.URL, m.Line+1))
				w.mu.Unlock()
			}
		}
	}()
	go func() {
		for ev, err := range requests {
			if err != nil {
				return
			}
			w.mu.Lock()
			w.requests = append(w.requests, ev.Request.URL)
			w.mu.Unlock()
		}
	}()
	return w
}

// check fails the test for every console error and every request that left base.
func (w *watch) check(t *testing.T, base string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, e := range w.errors {
		t.Errorf("console %s", e)
	}
	if len(w.requests) == 0 {
		t.Error("no request seen: the network watch is broken")
	}
	for _, u := range w.requests {
		if !strings.HasPrefix(u, base+"/") {
			t.Errorf("a request left the server's origin: %s", u)
		}
	}
}

// waitFor polls a JavaScript condition until it is true.
func waitFor(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	browsertest.Wait(t, ctx, what, cond)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// The page against the real server and the fake model: a question sent
// with Enter streams its answer rendered as Markdown (markup in it stays
// text), a command's output shows in its action and its window, and Deny
// on an approval denies; no console error, no request off the origin.
func TestPageDrivesServer(t *testing.T) {
	ctx := browser(t)
	workdir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "precious")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	ai := fakeai.New(t,
		fakeai.Reply{Content: "Running the check.\n" + fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "echo hi-from-command"}),
		)},
		fakeai.Reply{Content: hostileAnswer},
		fakeai.Reply{Content: fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "rm -rf " + outside}))},
		fakeai.Reply{Content: "Left it alone."},
		fakeai.Reply{Content: fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "sleep 60"}))},
	)
	base, token := pageServer(t, ai, workdir)
	w := watchPage(ctx, t)

	showPage(t, ctx, base, token)
	if loc := eval[string](t, ctx, `location.href`); strings.Contains(loc, "token") {
		t.Errorf("the token stayed in the address: %s", loc)
	}

	// Turn 1: a question typed and sent with Enter.
	ask(t, ctx, "What does the check say?")
	waitFor(t, ctx, "the answer rendered", `[...document.querySelectorAll('.turn .md strong')].some(e => e.textContent === 'hi-from-command')`)
	waitFor(t, ctx, "the turn's result", `!!document.querySelector('.turn .turn-foot')`)
	if got := eval[string](t, ctx, `document.querySelector('.turn .q-text').textContent`); got != "What does the check say?" {
		t.Errorf("question shown as %q", got)
	}
	if got := eval[string](t, ctx, `document.getElementById('input').value`); got != "" {
		t.Errorf("the box still holds %q after sending", got)
	}
	// The command's line and output, in the conversation and in its window.
	action := eval[string](t, ctx, `[...document.querySelectorAll('.action')].filter(a => a.textContent.includes('echo hi-from-command'))
		.map(a => a.querySelector('.act-out')?.textContent ?? '(no output)').join('|')`)
	if strings.TrimSpace(action) != "hi-from-command" {
		t.Errorf("the command's action shows %q, want its output", action)
	}
	// Each action is named as its window describes it, with no window ids.
	if got := eval[string](t, ctx, `[...document.querySelectorAll('#log .action summary')].map(s => s.textContent).join('|')`); !strings.Contains(got, "run echo hi-from-command") || strings.Contains(got, "bash_1") {
		t.Errorf("the actions read %q", got)
	}
	waitFor(t, ctx, "bash_1 in the windows panel", `(document.querySelector('[data-window="bash_1"] .win-content')?.textContent || '').includes('hi-from-command')`)
	// Markup in the answer is text, and nothing of it ran.
	md := eval[string](t, ctx, `[...document.querySelectorAll('.turn .md')].map(e => e.textContent).join('\n')`)
	if !strings.Contains(md, "<script>window.pwned = 1</script>") || !strings.Contains(md, `<img src=x onerror=`) {
		t.Errorf("the markup in the answer is not shown as text:\n%s", md)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#log script, #log img, #log iframe, #log a[href^="javascript"]').length`); n != 0 {
		t.Errorf("%d elements made from the model's markup", n)
	}
	if eval[bool](t, ctx, `window.pwned !== undefined`) {
		t.Error("a script from the model's answer ran")
	}

	waitFor(t, ctx, "the session idle", `document.getElementById('state').textContent === 'idle'`)

	// Turn 2, over two lines (Shift+Enter): a dangerous command asks; Deny denies it.
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("input"), "Clean"), key("Enter", "\r", 8)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `document.getElementById('input').value`); got != "Clean\n" {
		t.Errorf("after Shift+Enter the box holds %q, want a new line", got)
	}
	ask(t, ctx, "up")
	waitFor(t, ctx, "the approval question", `!!document.querySelector('.approval:not(.settled) button.deny')`)
	if got := eval[string](t, ctx, `document.querySelector('.turn[data-turn="2"] .q-text').textContent`); got != "Clean\nup" {
		t.Errorf("second question shown as %q", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('.approval .ap-arg').textContent`); !strings.Contains(got, "rm -rf "+outside) {
		t.Errorf("the question shows %q", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('.approval .ap-head').textContent`); got != "?Allow run rm -rf "+outside+"?command" {
		t.Errorf("the question's head reads %q", got)
	}
	if got := eval[string](t, ctx, `document.getElementById('state').textContent`); got != "needs approval" {
		t.Errorf("state shows %q while a question waits", got)
	}
	shots := t.TempDir()
	if d := os.Getenv("ACI_SHOTS"); d != "" {
		shots = d
	}
	screenshot(t, ctx, filepath.Join(shots, "approval.png"))
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(".approval button.deny"))); err != nil {
		t.Fatal(err)
	}
	// Said once: the answered card gives way to the denied action's row.
	waitFor(t, ctx, "the denial shown", `document.querySelector('.approval .ap-note')?.textContent === 'denied' || !!document.querySelector('.action.st-denied')`)
	waitFor(t, ctx, "the denied action", `!!document.querySelector('.action.st-denied')`)
	waitFor(t, ctx, "the second answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Left it alone.'))`)
	waitFor(t, ctx, "the session named by its first question", `document.querySelector('#sessions .sess.active .sess-title')?.textContent === 'What does the check say?' && document.getElementById('title').textContent === 'What does the check say?'`)
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
	reqs := ai.Requests()
	if last := reqs[len(reqs)-1].Messages; !strings.Contains(last[len(last)-1].Content, `status="denied"`) {
		t.Errorf("the model was not told of the denial:\n%s", last[len(last)-1].Content)
	}
	screenshot(t, ctx, filepath.Join(shots, "page.png"))

	// Fork at turn 1: a branch holding the first turn opens, under its parent in the list.
	parent := eval[string](t, ctx, `location.hash.slice(1)`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.turn[data-turn="1"] button.fork`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the branch opened", `location.hash.length > 1 && location.hash.slice(1) !== `+jsString(parent)+
		` && document.querySelectorAll('.turn').length === 1 && !!document.querySelector('#meta .branch')`)
	if got := eval[string](t, ctx, `document.querySelector('.turn .q-text').textContent`); got != "What does the check say?" {
		t.Errorf("the branch shows the question %q", got)
	}
	waitFor(t, ctx, "the branch under its parent", `!!document.querySelector('#sessions .kids .sess.active')`)
	screenshot(t, ctx, filepath.Join(shots, "branch.png"))

	// Cancel ends a running command's turn.
	ask(t, ctx, "Wait a minute")
	waitFor(t, ctx, "the command running", `document.getElementById('state').textContent === 'running' && !document.getElementById('cancel').hidden`)
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("cancel"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the turn ended", `document.querySelector('.turn[data-turn="2"] .turn-foot.error')?.textContent.includes('interrupted') && document.getElementById('state').textContent === 'idle' && document.getElementById('cancel').hidden`)
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("Cancel took %s", took)
	}

	if eval[bool](t, ctx, `document.documentElement.outerHTML.includes(`+jsString(testKey)+`)`) {
		t.Error("the API key reached the page")
	}

	// The same page in the dark scheme.
	dark := emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, dark); err != nil {
		t.Fatal(err)
	}
	if bg := eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(20, 21, 24)" {
		t.Errorf("dark scheme: the background is %s", bg)
	}
	screenshot(t, ctx, filepath.Join(shots, "dark.png"))
	t.Logf("screenshots: %s", shots)
	w.check(t, base)
}

// screenshot writes the page as it is to path, and to ACI_SCREENSHOT_DIR
// as well when that is set (to keep it after the test).
func screenshot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("ACI_SCREENSHOT_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, t.Name()+"-"+filepath.Base(path)), buf, 0o644); err != nil {
			t.Error(err)
		}
	}
}
