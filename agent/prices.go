package agent

import "strings"

// Money. What a request cost is its usage times its model's price: the
// table below for the well-known hosted models, OpenRouter's own list on
// OpenRouter (openrouter.go), and the person's `prices` in settings, which
// win. A server on this machine costs nothing.

// PriceTableDate is when the figures of priceTable were taken from the
// providers' published price lists.
const PriceTableDate = "2025-11-25"

// Price is a model's price in USD per million tokens. CachedInput is a
// prompt token read from the provider's cache, CacheWrite one written to
// it (Anthropic charges 1.25× input; 0 means the input price).
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input"`
	CacheWrite  float64 `json:"cache_write,omitempty"`
	Output      float64 `json:"output"`
}

// priceTable holds list prices (standard tier, prompts under any long-
// context surcharge) by model name as normalize writes it.
var priceTable = map[string]Price{
	// OpenAI: cache writes cost nothing extra.
	"gpt-5":        {1.25, 0.125, 0, 10},
	"gpt-5.1":      {1.25, 0.125, 0, 10},
	"gpt-5-mini":   {0.25, 0.025, 0, 2},
	"gpt-5-nano":   {0.05, 0.005, 0, 0.40},
	"gpt-5-codex":  {1.25, 0.125, 0, 10},
	"gpt-4.1":      {2, 0.50, 0, 8},
	"gpt-4.1-mini": {0.40, 0.10, 0, 1.60},
	"gpt-4.1-nano": {0.10, 0.025, 0, 0.40},
	"gpt-4o":       {2.50, 1.25, 0, 10},
	"gpt-4o-mini":  {0.15, 0.075, 0, 0.60},
	"o3":           {2, 0.50, 0, 8},
	"o3-mini":      {1.10, 0.55, 0, 4.40},
	"o4-mini":      {1.10, 0.275, 0, 4.40},
	"o1":           {15, 7.50, 0, 60},
	// Anthropic: five-minute cache writes 1.25×, reads 0.1×.
	"claude-opus-4.5":   {5, 0.50, 6.25, 25},
	"claude-opus-4.1":   {15, 1.50, 18.75, 75},
	"claude-opus-4":     {15, 1.50, 18.75, 75},
	"claude-sonnet-4.5": {3, 0.30, 3.75, 15},
	"claude-sonnet-4":   {3, 0.30, 3.75, 15},
	"claude-3.7-sonnet": {3, 0.30, 3.75, 15},
	"claude-haiku-4.5":  {1, 0.10, 1.25, 5},
	"claude-3.5-haiku":  {0.80, 0.08, 1, 4},
	// Google: cached input at a tenth.
	"gemini-2.5-pro":        {1.25, 0.125, 0, 10},
	"gemini-2.5-flash":      {0.30, 0.03, 0, 2.50},
	"gemini-2.5-flash-lite": {0.10, 0.01, 0, 0.40},
	// DeepSeek (V3.2 prices, both names).
	"deepseek-chat":     {0.28, 0.028, 0, 0.42},
	"deepseek-reasoner": {0.28, 0.028, 0, 0.42},
	// xAI.
	"grok-4":           {3, 0.75, 0, 15},
	"grok-code-fast-1": {0.20, 0.02, 0, 1.50},
}

// trimSnapshot drops a snapshot's suffix: -v1:0 (Bedrock), then a date,
// -2025-08-07 or -20250929. (No regexp: compiling one at start costs every
// run.)
func trimSnapshot(m string) string {
	if i := strings.LastIndex(m, "-v"); i >= 0 && allOf(m[i+2:], "0123456789:") && len(m) > i+2 {
		m = m[:i]
	}
	if n := len(m); n > 11 && m[n-11] == '-' && m[n-6] == '-' && m[n-3] == '-' && allOf(m[n-10:n-6]+m[n-5:n-3]+m[n-2:], "0123456789") {
		return m[:n-11]
	}
	if n := len(m); n > 9 && m[n-9] == '-' && allOf(m[n-8:], "0123456789") {
		return m[:n-9]
	}
	return m
}

// dotVersion writes Anthropic's own spelling of a version with a dot:
// claude-sonnet-4-5 is claude-sonnet-4.5; claude-3-7-sonnet is claude-3.7-sonnet.
func dotVersion(m string) string {
	b := []byte(m)
	for i := 1; i+1 < len(b); i++ {
		if b[i] == '-' && isDigit(b[i-1]) && isDigit(b[i+1]) && (i+2 == len(b) || !isDigit(b[i+2])) && (i < 2 || !isDigit(b[i-2])) {
			b[i] = '.'
		}
	}
	return string(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allOf(s, set string) bool {
	for _, c := range s {
		if !strings.ContainsRune(set, c) {
			return false
		}
	}
	return true
}

// normalize writes a model name as the table does: no gateway prefix
// (openai/, anthropic/, us.anthropic.), no snapshot date, versions with a
// dot (claude-sonnet-4-5 is claude-sonnet-4.5), lower case.
func normalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.Index(m, "claude"); i > 0 {
		m = m[i:]
	}
	m = trimSnapshot(strings.TrimSuffix(strings.TrimSuffix(m, ":latest"), "-latest"))
	if strings.HasPrefix(m, "claude") {
		m = dotVersion(m)
	}
	return m
}

// tablePrice finds model in table: its exact name, a snapshot of it, or
// failing that the longest name it starts with followed by "-"
// (gpt-5-mini-2025-08-07, gpt-4.1-mini-preview). Keys of table are taken
// as given and normalized too.
func tablePrice(table map[string]Price, model string) (Price, bool) {
	if p, ok := table[model]; ok {
		return p, true
	}
	n := normalize(model)
	best, found := "", false
	for k, p := range table {
		nk := normalize(k)
		if nk == n {
			return p, true
		}
		if strings.HasPrefix(n, nk+"-") && len(nk) > len(best) {
			best, found = nk, true
		}
	}
	if !found {
		return Price{}, false
	}
	for k, p := range table {
		if normalize(k) == best {
			return p, true
		}
	}
	return Price{}, false
}

// Cost is what requests cost in USD, and what the prompt cache saved
// against paying for every prompt token in full; Unpriced counts the
// requests no price was known for (their cost is not in USD).
type Cost struct {
	USD      float64
	SavedUSD float64
	Unpriced int
}

// Known reports whether every request had a price.
func (c Cost) Known() bool { return c.Unpriced == 0 }

// Add sums two costs.
func (c Cost) Add(d Cost) Cost {
	return Cost{USD: c.USD + d.USD, SavedUSD: c.SavedUSD + d.SavedUSD, Unpriced: c.Unpriced + d.Unpriced}
}

// Sub is c less an earlier total d: one turn's share of a session's.
func (c Cost) Sub(d Cost) Cost {
	return Cost{USD: c.USD - d.USD, SavedUSD: c.SavedUSD - d.SavedUSD, Unpriced: c.Unpriced - d.Unpriced}
}

// costOf prices one response's usage.
func costOf(p Price, u Usage) Cost {
	write := p.CacheWrite
	if write == 0 {
		write = p.Input
	}
	cached := min(u.CachedTokens, u.PromptTokens)
	written := min(u.CacheWriteTokens, u.PromptTokens-cached)
	plain := u.PromptTokens - cached - written
	usd := float64(plain)*p.Input + float64(cached)*p.CachedInput + float64(written)*write + float64(u.CompletionTokens)*p.Output
	saved := float64(cached)*(p.Input-p.CachedInput) - float64(written)*(write-p.Input)
	return Cost{USD: usd / 1e6, SavedUSD: saved / 1e6}
}
