package web_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/session"
	"github.com/chromedp/chromedp"
)

// The picker offers a provider's models; a session on one asks that
// provider's server, and the page shows the turn's and the session's
// cost: 2,000 × $1 + 8,000 × $0.1 + 500 × $10 per million = $0.0078, the
// cache saving 8,000 × $0.9 = $0.0072.
func TestPageProvidersAndMoney(t *testing.T) {
	ctx := browser(t)
	def := fakeai.New(t)
	def.SetInfo(fakeai.Info{Models: []string{"fake-model"}})
	other := fakeai.New(t, fakeai.Reply{Content: "Answered by the provider.", PromptTokens: 10000, CachedTokens: 8000, CompletionTokens: 500})
	t.Setenv("ACI_TEST_PAGE_OTHER_KEY", "sk-page-other-key-0001")
	testSecrets.Add(testKey)
	f := session.NewFactory(session.Config{
		Client: session.ClientConfig{BaseURL: def.URL, APIKey: testKey, Model: "fake-model", Stream: true,
			Providers: []session.Provider{{Name: "other", BaseURL: other.URL, APIKeyEnv: "ACI_TEST_PAGE_OTHER_KEY", Models: []string{"llama-3"}}},
			Prices:    map[string]session.Price{"llama-3": {Input: 1, CachedInput: 0.1, Output: 10}}},
		Agent:           session.AgentConfig{BasePrompt: "You are aci, in a test.", MaxSteps: 10, CompressTokens: 1 << 30, Redact: testSecrets.Redact},
		Secrets:         testSecrets,
		OutputLimit:     30000,
		SessionsDir:     t.TempDir(),
		ApprovalTimeout: time.Minute,
	})
	base, token := pageServerIn(t, f, t.TempDir())
	w := watchPage(ctx, t)
	navigate(t, ctx, base+"/#token="+token)
	waitFor(t, ctx, "the model list", `document.getElementById('model').options.length === 2`)
	if got := eval[string](t, ctx, `[...document.getElementById('model').options].map(o => (o.parentElement.label ? o.parentElement.label + ':' : '') + o.textContent).join('|')`); got != "fake-model (default)|other:other/llama-3" {
		t.Errorf("the models offered: %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("model"), "other/llama-3"), chromedp.Click(chromedp.ID("new"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the new session", `[...document.querySelectorAll('#meta .mono')].some(e => e.textContent === 'other/llama-3')`)
	ask(t, ctx, "Who answers?")
	waitFor(t, ctx, "the turn's cost", `[...document.querySelectorAll('.turn-foot')].some(e => e.textContent.includes('$0.0078'))`)
	waitFor(t, ctx, "the session's cost", `document.getElementById('usage').textContent.includes('$0.0078 (cache saved $0.0072)')`)
	if reqs := other.Requests(); len(reqs) != 1 || reqs[0].Model != "llama-3" || reqs[0].APIKey() != "sk-page-other-key-0001" || len(def.Requests()) != 0 {
		t.Errorf("the provider got %d requests, the default endpoint %d", len(other.Requests()), len(def.Requests()))
	}
	if !strings.Contains(eval[string](t, ctx, `document.body.textContent`), "Answered by the provider.") {
		t.Error("the answer is not shown")
	}
	shots := t.TempDir()
	screenshot(t, ctx, filepath.Join(shots, "money.png"))
	t.Logf("screenshots: %s", shots)
	w.check(t, base)
}
