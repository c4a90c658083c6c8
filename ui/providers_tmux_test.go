package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// TestREPLSwitchesProvider: in the REPL, a turn on the default endpoint,
// then /model to a provider of the settings, then a turn there: the
// provider's server gets the whole conversation with its own key, the
// footers show each turn's cost and the session's, and /usage the total.
func TestREPLSwitchesProvider(t *testing.T) {
	t.Parallel()
	def := fakeai.New(t, fakeai.Reply{Content: "The default endpoint answers.", PromptTokens: 10000, CachedTokens: 8000, CompletionTokens: 500})
	other := fakeai.New(t, fakeai.Reply{Content: "The provider answers.", PromptTokens: 1000, CompletionTokens: 100})
	home := t.TempDir()
	settings := `{"providers": {"other": {"base_url": "` + other.URL + `", "api_key_env": "OTHER_API_KEY", "models": ["llama-3"]}},
		"prices": {"test-model": {"input": 1, "cached_input": 0.1, "output": 10}, "llama-3": {"input": 2, "output": 20}}}`
	p := filepath.Join(home, ".config", "aci", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startPaneIn(t, def, t.TempDir(), home, []string{"OTHER_API_KEY=sk-other-provider-0001"}, func(bin string) []string { return []string{bin} })
	s.waitPrompt()
	s.typeLine("first question")
	s.waitFor("The default endpoint answers.")
	// 2,000 × $1 + 8,000 × $0.1 + 500 × $10 per million.
	s.waitFor("/ 500 out · $0.0078 (cache saved $0.0072)")
	s.waitPrompt()
	s.typeLine("/model other/llama-3")
	s.waitFor("model: other/llama-3")
	s.typeLine("second question")
	s.waitFor("The provider answers.")
	// 1,000 × $2 + 100 × $20 per million.
	s.waitFor("/ 100 out · $0.0040 (session $0.0118)")
	s.waitPrompt()
	s.typeLine("/usage")
	s.waitFor("$0.0118 this session, the prompt cache saved $0.0072")
	s.exit()
	reqs := other.Requests()
	if len(reqs) != 1 || reqs[0].Model != "llama-3" || reqs[0].APIKey() != "sk-other-provider-0001" {
		t.Fatalf("the provider got %d requests", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), "first question") || !strings.Contains(string(reqs[0].Body), "The default endpoint answers.") {
		t.Error("the provider was not sent the conversation so far")
	}
	if n := len(def.Requests()); n != 1 {
		t.Errorf("the default endpoint got %d requests, want 1", n)
	}
}
