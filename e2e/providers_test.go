package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

// providersHome writes the person's settings.json with settings and
// returns the home directory.
func providersHome(t *testing.T, settings string) string {
	t.Helper()
	home := t.TempDir()
	p := filepath.Join(home, ".config", "aci", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestProvidersBinary: with a provider in settings, --model NAME/MODEL
// sends the question to that provider's server with its key, never the
// default key, and nothing to the default endpoint; OpenRouter-style
// names stay on the default endpoint; a provider whose key variable is
// not set, and a malformed entry, stop aci at start with exit 2 and a
// message naming them.
func TestProvidersBinary(t *testing.T) {
	def, other := fakeai.New(t), fakeai.New(t)
	def.Handle(func(fakeai.Request) fakeai.Reply { return fakeai.Reply{Content: "default answers"} })
	other.Handle(func(fakeai.Request) fakeai.Reply { return fakeai.Reply{Content: "other answers"} })
	const otherKey = "sk-other-provider-key-5678"
	settings := `{"providers": {
		"other": {"base_url": "` + other.URL + `", "api_key_env": "OTHER_API_KEY", "models": ["llama-3"]},
		"paid": {"base_url": "https://paid.example/v1", "api_key_env": "PAID_API_KEY"}}}`
	home := providersHome(t, settings)
	run := func(extraEnv []string, args ...string) runResult {
		env := testutil.ChildEnv(home, def.URL, testKey, append([]string{"OTHER_API_KEY=" + otherKey}, extraEnv...)...)
		return aciEnv(t, t.TempDir(), env, "", append([]string{"-p", "hi"}, args...)...)
	}

	if r := run(nil, "--model", "other/llama-3"); r.code != 0 || r.stdout != "other answers\n" {
		t.Fatalf("--model other/llama-3: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if r := run(nil, "--model", "anthropic/claude-sonnet-4.5"); r.code != 0 || r.stdout != "default answers\n" {
		t.Fatalf("--model anthropic/claude-sonnet-4.5: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if r := run([]string{"OPENAI_MODEL=other/llama-3"}); r.code != 0 || r.stdout != "other answers\n" {
		t.Fatalf("OPENAI_MODEL=other/llama-3: exit %d, stdout %q", r.code, r.stdout)
	}
	for _, r := range other.Requests() {
		if r.Model != "llama-3" || r.APIKey() != otherKey || strings.Contains(string(r.Body), testKey) {
			t.Errorf("the provider got model %q, key %q", r.Model, r.APIKey())
		}
	}
	for _, r := range def.Requests() {
		if r.Model != "anthropic/claude-sonnet-4.5" || r.APIKey() != testKey {
			t.Errorf("the default endpoint got model %q, key %q", r.Model, r.APIKey())
		}
	}
	// A typo of a provider's name still goes to the default endpoint (its
	// prefix names no provider), said with the providers and a guess; a
	// vendor prefix far from every provider says nothing.
	if r := run(nil, "--model", "othr/llama-3"); r.code != 0 || r.stdout != "default answers\n" ||
		!strings.Contains(r.stderr, `"othr" is not one of your providers (other, paid)`) || !strings.Contains(r.stderr, "did you mean other/llama-3?") {
		t.Errorf("--model othr/llama-3: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if r := run(nil, "--model", "anthropic/claude-sonnet-4.5"); strings.Contains(r.stderr, "not one of your providers") {
		t.Errorf("an OpenRouter-style name is taken for a typo: %s", r.stderr)
	}
	if len(other.Requests()) != 2 || len(def.Requests()) != 3 {
		t.Errorf("%d requests to the provider, %d to the default endpoint; want 2 and 3", len(other.Requests()), len(def.Requests()))
	}

	r := run(nil, "--model", "paid/big")
	if r.code != 2 || !strings.Contains(r.stderr, "provider paid: its key variable PAID_API_KEY is not set") {
		t.Errorf("a provider without its key: exit %d, stderr %s", r.code, r.stderr)
	}
	// The default endpoint keeps working with that provider configured.
	if r := run(nil); r.code != 0 || r.stdout != "default answers\n" {
		t.Errorf("the default endpoint: exit %d, stderr %s", r.code, r.stderr)
	}

	home = providersHome(t, `{"providers": {"bad": {"base_url": "localhost:8080"}}}`)
	r = run(nil)
	if r.code != 2 || !strings.Contains(r.stderr, `providers.bad: base_url must be an http(s) URL, got "localhost:8080"`) {
		t.Errorf("a malformed provider: exit %d, stderr %s", r.code, r.stderr)
	}
	home = providersHome(t, `{"prices": {"m": {"input": "cheap", "output": 1}}}`)
	if r = run(nil); r.code != 2 || !strings.Contains(r.stderr, "prices.m:") {
		t.Errorf("a malformed price: exit %d, stderr %s", r.code, r.stderr)
	}
}
