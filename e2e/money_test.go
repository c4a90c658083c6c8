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
		return fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": target}))
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
