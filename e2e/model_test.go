package e2e

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

// moneyRun runs one headless question against srv with model, the
// person's settings.json holding settings (if any), and returns the
// result object and stderr.
func moneyRun(t *testing.T, srv *fakeai.Server, model, settings string, args ...string) (map[string]any, runResult) {
	t.Helper()
	home, dir := t.TempDir(), t.TempDir()
	if settings != "" {
		p := filepath.Join(home, ".config", "aci", "settings.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := testutil.ChildEnv(home, srv.URL, testKey, "OPENAI_MODEL="+model)
	r := aciEnv(t, dir, env, "", append([]string{"-p", "what now?", "--output-format", "json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
	}
	if _, ok := res["total_cost_usd"]; !ok {
		t.Fatalf("the result has no total_cost_usd: %s", r.stdout)
	}
	return res, r
}

// A reply of 10,000 prompt tokens, 8,000 of them cached, and 500 out:
// on gpt-5-mini ($0.25 in, $0.025 cached, $2 out per million tokens)
// 2,000 × 0.25 + 8,000 × 0.025 + 500 × 2 = 1,700 µ$ = $0.0017.
var pricedReply = fakeai.Reply{Content: "Done.", PromptTokens: 10000, CachedTokens: 8000, CompletionTokens: 500}

// TestTotalCostUSD: the headless result's total_cost_usd comes from the
// built-in table for a hosted endpoint, from the person's prices (which
// win), is 0 on a local server, and null with a hint, said once, when the
// price is unknown.
func TestTotalCostUSD(t *testing.T) {
	ip := fakeai.NonLoopbackIP()
	cases := []struct {
		name, model, settings string
		remote                bool
		want                  any // float64, or nil for null
		hint                  bool
	}{
		{"table", "gpt-5-mini", "", true, 0.0017, false},
		{"settings win over the table", "gpt-5-mini", `{"prices": {"gpt-5-mini": {"input": 1, "cached_input": 0.1, "output": 10}}}`, true, 0.0078, false},
		{"settings on a local server", "my-local-model", `{"prices": {"my-local-model": {"input": 1, "output": 1}}}`, false, 0.0105, false},
		{"local server", "gpt-5-mini", "", false, 0.0, false},
		{"unknown", "my-hosted-model", "", true, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var srv *fakeai.Server
			if c.remote {
				if ip == "" {
					t.Skip("this machine has no address but loopback")
				}
				srv = fakeai.NewAt(t, ip+":0", pricedReply)
			} else {
				srv = fakeai.New(t, pricedReply)
			}
			res, r := moneyRun(t, srv, c.model, c.settings)
			got := res["total_cost_usd"]
			switch want := c.want.(type) {
			case nil:
				if got != nil {
					t.Errorf("total_cost_usd = %v, want null", got)
				}
			case float64:
				if g, ok := got.(float64); !ok || math.Abs(g-want) > 1e-9 {
					t.Errorf("total_cost_usd = %v, want %v", got, want)
				}
			}
			hint := strings.Count(r.stderr, "no price known for "+c.model)
			if c.hint && (hint != 1 || !strings.Contains(r.stderr, `"prices"`)) {
				t.Errorf("want the price hint once on stderr, got %d:\n%s", hint, r.stderr)
			}
			if !c.hint && hint != 0 {
				t.Errorf("a price hint for a priced model:\n%s", r.stderr)
			}
		})
	}
}

// TestEffortBinary: --effort and ACI_REASONING_EFFORT reach the request
// as reasoning_effort for a model that takes one, and not for another.
func TestEffortBinary(t *testing.T) {
	srv := fakeai.New(t)
	srv.Handle(func(fakeai.Request) fakeai.Reply { return fakeai.Reply{Content: "ok"} })
	for _, c := range []struct {
		env  []string
		args []string
		want any
	}{
		{[]string{"OPENAI_MODEL=gpt-5-mini"}, []string{"--effort", "high"}, "high"},
		{[]string{"OPENAI_MODEL=o4-mini", "ACI_REASONING_EFFORT=low"}, nil, "low"},
		{[]string{"OPENAI_MODEL=gpt-5-mini", "ACI_REASONING_EFFORT=low"}, []string{"--effort", "medium"}, "medium"},
		{[]string{"OPENAI_MODEL=gpt-4.1"}, []string{"--effort", "high"}, nil},
		{[]string{"OPENAI_MODEL=gpt-5-mini"}, nil, nil},
	} {
		n := len(srv.Requests())
		r := aci(t, t.TempDir(), srv, "", c.env, append([]string{"-p", "hi"}, c.args...)...)
		if r.code != 0 {
			t.Fatalf("%v %v: exit %d: %s", c.env, c.args, r.code, r.stderr)
		}
		if got := srv.Requests()[n].Raw["reasoning_effort"]; got != c.want {
			t.Errorf("%v %v: reasoning_effort %v, want %v", c.env, c.args, got, c.want)
		}
	}
	if r := aci(t, t.TempDir(), srv, "", nil, "-p", "hi", "--effort", "huge"); r.code != 2 || !strings.Contains(r.stderr, "want one of low, medium, high") {
		t.Errorf("--effort huge: exit %d, %s", r.code, r.stderr)
	}
}

// TestCostHandComputed runs a three-request session on gpt-5-mini ($0.25
// in, $0.025 cached, $2 out per million tokens) and checks the cost shown
// against the hand computation:
//
//	request 1: 1,000 prompt (600 cached), 50 out: 400×0.25 + 600×0.025 + 50×2 = 215 µ$
//	request 2: 1,200 prompt (none cached), 60 out: 1,200×0.25 + 60×2 = 420 µ$
//	request 3: 1,400 prompt (1,000 cached), 70 out: 400×0.25 + 1,000×0.025 + 70×2 = 265 µ$
//	total 900 µ$ = $0.0009; the cache saved 1,600 × 0.225 = 360 µ$.
func TestCostHandComputed(t *testing.T) {
	ip := fakeai.NonLoopbackIP()
	if ip == "" {
		t.Skip("this machine has no address but loopback")
	}
	open := func(target string) string {
		return fakeai.ToolCall(openFile(target))
	}
	srv := fakeai.NewAt(t, ip+":0",
		fakeai.Reply{Content: "Reading.\n" + open("a.txt"), PromptTokens: 1000, CachedTokens: 600, CompletionTokens: 50},
		fakeai.Reply{Content: open("b.txt"), PromptTokens: 1200, CompletionTokens: 60},
		fakeai.Reply{Content: "Both say hello.", PromptTokens: 1400, CachedTokens: 1000, CompletionTokens: 70})
	home, dir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("hello\n"), 0o644)
	env := testutil.ChildEnv(home, srv.URL, testKey, "OPENAI_MODEL=gpt-5-mini")
	r := aciEnv(t, dir, env, "", "-p", "what do they say?", "--output-format", "json")
	var res struct {
		NumSteps     int      `json:"num_steps"`
		TotalCostUSD *float64 `json:"total_cost_usd"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 {
		t.Fatalf("exit %d, %v: %s %s", r.code, err, r.stdout, r.stderr)
	}
	if res.NumSteps != 3 || res.TotalCostUSD == nil || math.Abs(*res.TotalCostUSD-0.0009) > 1e-12 {
		t.Errorf("%d steps, total_cost_usd %v; want 3 and 0.0009", res.NumSteps, res.TotalCostUSD)
	}
	t.Logf("hand: $0.000900 (saved $0.000360); aci: $%.6f", *res.TotalCostUSD)
}

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

// The open-model paths through the built binary, in pipe mode.

func TestPipeReasoningModel(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Reasoning: "The user wants a file.", Content: "<think>Open it first.</think>\n{\"name\": \"launcher.open\", \"arguments\": {\"app\": \"file\", \"target\": \"notes.txt\"}}"},
		fakeai.Reply{Content: "<tool_call>\n<function=file_1.write>\n<parameter=content>\nhello\n</parameter>\n</function>\n</tool_call>"},
		fakeai.Reply{Content: "Checked.\n</think>\nWrote notes.txt."},
	)
	dir := t.TempDir()
	r := aci(t, dir, srv, "", nil, "-p", "write hello to notes.txt")
	if r.code != 0 || r.stdout != "Wrote notes.txt.\n" {
		t.Fatalf("%d %q\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "Open it first") || strings.Contains(r.stdout+r.stderr, "Checked.") {
		t.Errorf("reasoning shown in pipe mode:\n%s", r.stderr)
	}
	for _, req := range srv.Requests() {
		if strings.Contains(string(req.Body), "Open it first") || strings.Contains(string(req.Body), "user wants a file") {
			t.Errorf("reasoning sent back in request %d", req.N)
		}
	}
}

func TestPipeContextWindowTooSmall(t *testing.T) {
	srv := fakeai.New(t)
	srv.SetInfo(fakeai.Info{Models: []string{"test-model"}, OllamaNumCtx: 2048})
	r := aci(t, t.TempDir(), srv, strings.Repeat("a long pasted log line\n", 600), nil)
	if r.code != 1 || !strings.Contains(r.stderr, "OLLAMA_CONTEXT_LENGTH=32768 ollama serve") || len(srv.Requests()) != 0 {
		t.Fatalf("%d %q, %d requests", r.code, r.stderr, len(srv.Requests()))
	}
}

// End-to-end model-API faults: the real binary in pipe mode against a
// misbehaving fake server.

func TestE2ERateLimitedThenAnswers(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}},
		fakeai.Reply{Content: "answer after the wait"},
	)
	r := aci(t, t.TempDir(), srv, "hi", nil)
	if r.code != 0 || r.stdout != "answer after the wait\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "aci: retrying in 1s (2/4): 429 rate limited\n") {
		t.Errorf("stderr lacks the retry line:\n%s", r.stderr)
	}
}

func TestE2EServerErrorsFallBack(t *testing.T) {
	srv := fakeai.New(t)
	srv.Handle(func(req fakeai.Request) fakeai.Reply {
		if req.Model == "test-model" {
			// Retry-After: 0 keeps the test fast; the backoff math is unit-tested.
			return fakeai.Reply{Status: 500, ErrorMessage: "overloaded", Header: map[string]string{"Retry-After": "0"}}
		}
		return fakeai.Reply{Content: "answered by " + req.Model}
	})
	r := aci(t, t.TempDir(), srv, "hi", []string{"OPENAI_FALLBACK_MODELS=backup, other"})
	if r.code != 0 || r.stdout != "answered by backup\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"retrying in 0s (4/4): 500 internal server error", "aci: falling back to model backup"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	var asked []string
	for _, req := range srv.Requests() {
		asked = append(asked, req.Model)
	}
	if got := strings.Join(asked, ","); got != "test-model,test-model,test-model,test-model,backup" {
		t.Errorf("models asked: %s", got)
	}
}

func TestE2EGarbageBody(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{RawBody: "<html><h1>Welcome to nginx!</h1></html>"})
	r := aci(t, t.TempDir(), srv, "hi", nil)
	want := "aci: Failed to parse API response as JSON. Raw response: <html><h1>Welcome to nginx!</h1></html>\n"
	if r.code != 1 || r.stdout != "" || !strings.HasSuffix(r.stderr, want) {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1: a body that is not JSON is not retried", n)
	}
}

func TestE2EStreamCutAfterText(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "Here is the first part of a long answer", CutAfter: 2})
	r := aci(t, t.TempDir(), srv, "hi", nil)
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "aci: the response stream was cut off after text was shown; not retrying") {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "retrying in") || len(srv.Requests()) != 1 {
		t.Errorf("retried after text was shown:\n%s", r.stderr)
	}
}

func TestE2EConnectionRefused(t *testing.T) {
	srv := fakeai.New(t)
	srv.Close()
	r := aci(t, t.TempDir(), srv, "hi", nil)
	if r.code != 1 || !strings.Contains(r.stderr, "aci: cannot reach "+srv.URL) {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if lines := strings.Count(strings.TrimSpace(r.stderr), "\n") + 1; lines != 1 {
		t.Errorf("want one clear line, got %d:\n%s", lines, r.stderr)
	}
}
