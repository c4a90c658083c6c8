package agent

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

func TestTablePrice(t *testing.T) {
	cases := []struct {
		model string
		want  string // the table's key, "" for unknown
	}{
		{"gpt-5-mini", "gpt-5-mini"},
		{"gpt-5-mini-2025-08-07", "gpt-5-mini"},
		{"openai/gpt-5", "gpt-5"},
		{"gpt-5", "gpt-5"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4.5"},
		{"anthropic/claude-sonnet-4.5", "claude-sonnet-4.5"},
		{"us.anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4.1"},
		{"claude-opus-4-20250514", "claude-opus-4"},
		{"claude-3-7-sonnet-20250219", "claude-3.7-sonnet"},
		{"claude-3-5-haiku-latest", "claude-3.5-haiku"},
		{"claude-sonnet-4-20250514", "claude-sonnet-4"},
		{"gpt-4.1-2025-04-14", "gpt-4.1"},
		{"o4-mini-2025-04-16", "o4-mini"},
		{"google/gemini-2.5-flash-lite", "gemini-2.5-flash-lite"},
		{"deepseek-chat", "deepseek-chat"},
		{"gpt-4.1-mini", "gpt-4.1-mini"},
		{"qwen3:8b", ""},
		{"gpt-50", ""},
	}
	for _, c := range cases {
		p, ok := tablePrice(priceTable, c.model)
		if c.want == "" {
			if ok {
				t.Errorf("%s: priced %v, want unknown", c.model, p)
			}
			continue
		}
		if !ok || p != priceTable[c.want] {
			t.Errorf("%s: %v %v, want %s's %v", c.model, p, ok, c.want, priceTable[c.want])
		}
	}
}

// TestCostOf checks one response against a hand computation: gpt-5-mini
// at $0.25 in, $0.025 cached, $2 out per million tokens; 10,000 prompt
// tokens of which 8,000 cached, 500 out:
// 2,000 × 0.25 + 8,000 × 0.025 + 500 × 2 = 500 + 200 + 1,000 = 1,700 µ$;
// saved 8,000 × (0.25 − 0.025) = 1,800 µ$.
func TestCostOf(t *testing.T) {
	c := costOf(priceTable["gpt-5-mini"], Usage{PromptTokens: 10000, CachedTokens: 8000, CompletionTokens: 500})
	if !near(c.USD, 0.0017) || !near(c.SavedUSD, 0.0018) {
		t.Errorf("gpt-5-mini: %+v, want $0.0017, saved $0.0018", c)
	}
	// Claude Sonnet 4.5: 3 in, 0.30 read, 3.75 write, 15 out. 10,000
	// prompt: 6,000 read, 3,000 written, 1,000 plain; 200 out:
	// 1,000×3 + 6,000×0.3 + 3,000×3.75 + 200×15 = 3,000+1,800+11,250+3,000 = 19,050 µ$;
	// saved 6,000×2.7 − 3,000×0.75 = 16,200 − 2,250 = 13,950 µ$.
	c = costOf(priceTable["claude-sonnet-4.5"], Usage{PromptTokens: 10000, CachedTokens: 6000, CacheWriteTokens: 3000, CompletionTokens: 200})
	if !near(c.USD, 0.01905) || !near(c.SavedUSD, 0.01395) {
		t.Errorf("claude-sonnet-4.5: %+v", c)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestReplyCost: the client prices each reply from the table, from the
// person's prices (which win), as free on a local server, and as unpriced
// when the model is unknown.
func TestReplyCost(t *testing.T) {
	msgs := []Message{{Role: "system", Content: "s"}, {Role: "user", Content: "q"}}
	reply := fakeai.Reply{Content: "ok", PromptTokens: 10000, CachedTokens: 8000, CompletionTokens: 500}
	cases := []struct {
		name   string
		model  string
		prices map[string]Price
		remote bool
		want   Cost
	}{
		{"table", "gpt-5-mini", nil, true, Cost{USD: 0.0017, SavedUSD: 0.0018}},
		{"settings win", "gpt-5-mini", map[string]Price{"gpt-5-mini": {Input: 1, CachedInput: 0.1, Output: 10}}, true, Cost{USD: 0.002 + 0.0008 + 0.005, SavedUSD: 0.0072}},
		{"settings for an unknown model", "my-model", map[string]Price{"my-model": {Input: 1, CachedInput: 1, Output: 1}}, true, Cost{USD: 0.0105}},
		{"unknown", "my-model", nil, true, Cost{Unpriced: 1}},
		{"local server", "gpt-5-mini", nil, false, Cost{}},
	}
	for _, c := range cases {
		srv := fakeai.New(t, reply)
		old := isLoopbackURL
		if c.remote {
			isLoopbackURL = func(string) bool { return false }
		}
		cl := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, APIKey: "k", Model: c.model, Stream: true, Prices: c.prices})
		r, err := cl.Complete(context.Background(), msgs, nil)
		isLoopbackURL = old
		if err != nil {
			t.Fatal(err)
		}
		got := r.Usage.Cost
		if !near(got.USD, c.want.USD) || !near(got.SavedUSD, c.want.SavedUSD) || got.Unpriced != c.want.Unpriced {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestOpenRouterPrices: on OpenRouter the client prices from its model
// list, fetched once however many replies; the person's prices still win.
func TestOpenRouterPrices(t *testing.T) {
	reply := fakeai.Reply{Content: "ok", PromptTokens: 10000, CachedTokens: 8000, CompletionTokens: 500}
	srv := fakeai.New(t, reply, reply, reply, reply)
	srv.SetInfo(fakeai.Info{Models: []string{"anthropic/claude-sonnet-4.5", "z-ai/glm-4.6", "openrouter/auto"}, Pricing: map[string]map[string]string{
		"anthropic/claude-sonnet-4.5": {"prompt": "0.000003", "completion": "0.000015", "input_cache_read": "0.0000003", "input_cache_write": "0.00000375"},
		"z-ai/glm-4.6":                {"prompt": "0.0000005", "completion": "0.00000175"},
		"openrouter/auto":             {"prompt": "-1", "completion": "-1"},
	}})
	old := isOpenRouterURL
	isOpenRouterURL = func(base string) bool { return base == srv.URL }
	t.Cleanup(func() { isOpenRouterURL = old })
	cl := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, APIKey: "k", Model: "anthropic/claude-sonnet-4.5", Stream: true,
		Prices: map[string]Price{"my/override": {Input: 1, CachedInput: 1, Output: 1}}})
	msgs := []Message{{Role: "user", Content: "q"}}
	// 2,000 × 3 + 8,000 × 0.3 + 500 × 15 = 6,000 + 2,400 + 7,500 µ$.
	for _, want := range []struct {
		model string
		usd   float64
	}{{"anthropic/claude-sonnet-4.5", 0.0159}, {"z-ai/glm-4.6", (10000*0.5 + 500*1.75) / 1e6}, {"my/override", 0.0105}} {
		cl.SetModel(want.model)
		r, err := cl.Complete(context.Background(), msgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !near(r.Usage.Cost.USD, want.usd) {
			t.Errorf("%s: $%v, want $%v", want.model, r.Usage.Cost.USD, want.usd)
		}
	}
	cl.SetModel("openrouter/auto")
	if r, err := cl.Complete(context.Background(), msgs, nil); err != nil || r.Usage.Cost.Unpriced != 1 {
		t.Errorf("openrouter/auto: %+v, %v; want no price", r.Usage.Cost, err)
	}
	if n := srv.InfoRequests(); n != 1 {
		t.Errorf("the model list was fetched %d times, want once", n)
	}
	if got := srv.Requests()[0].Raw["messages"].([]any)[0].(map[string]any)["content"]; !strings.Contains(toJSON(got), "cache_control") {
		t.Errorf("a Claude model on OpenRouter was sent no breakpoint: %s", toJSON(got))
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
