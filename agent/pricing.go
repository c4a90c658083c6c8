package agent

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
)

// pricing is a client's way to its models' prices: the person's table,
// OpenRouter's list (fetched once, when first needed), the built-in one.
type pricing struct {
	overrides map[string]Price // `prices` in settings: they win

	mu        sync.Mutex
	orBase    string // the OpenRouter base URL the list was fetched from
	orDone    chan struct{}
	orList    map[string]Price
	orStarted bool
}

// openRouterListTimeout bounds fetching OpenRouter's model list.
const openRouterListTimeout = 10 * time.Second

// isOpenRouterURL says whether a base URL is OpenRouter's; tests point it
// at a loopback fake.
var isOpenRouterURL = isOpenRouter

// isLoopbackURL says whether a base URL is on this machine (a local
// server, which costs nothing); tests price a loopback fake as remote.
var isLoopbackURL = func(base string) bool {
	u, err := url.Parse(base)
	return err == nil && isLoopbackHost(u.Hostname())
}

// usage reads a response's usage.
func (c *OpenAIClient) usage(u openai.CompletionUsage) Usage {
	out := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, CachedTokens: u.PromptTokensDetails.CachedTokens}
	if f, ok := u.PromptTokensDetails.JSON.ExtraFields["cache_write_tokens"]; ok {
		out.CacheWriteTokens, _ = strconv.ParseInt(f.Raw(), 10, 64)
	}
	return out
}

// PriceOf is model's price on this client's endpoint: free says the
// endpoint is on this machine, known whether a price was found.
func (c *OpenAIClient) PriceOf(ctx context.Context, model string) (p Price, known, free bool) {
	if p, ok := tablePrice(c.pricing.overrides, model); ok {
		return p, true, false
	}
	ep := c.endpoint(model)
	if p, ok := tablePrice(c.pricing.overrides, ep.model); ok {
		return p, true, false
	}
	if isOpenRouterURL(ep.baseURL) {
		if p, ok := c.openRouterPrice(ctx, ep.baseURL, ep.key, ep.model); ok {
			return p, true, false
		}
	} else if isLoopbackURL(ep.baseURL) {
		return Price{}, true, true
	}
	p, ok := tablePrice(priceTable, ep.model)
	return p, ok, false
}

// price sets what a reply to model cost.
func (c *OpenAIClient) price(ctx context.Context, model string, r *Reply) {
	p, known, free := c.PriceOf(ctx, model)
	switch {
	case free:
		r.Usage.Cost = Cost{}
	case !known || !r.HasUsage:
		r.Usage.Cost = Cost{Unpriced: 1}
	default:
		r.Usage.Cost = costOf(p, r.Usage)
	}
}

// prefetchPrices starts fetching OpenRouter's list when the endpoint is
// OpenRouter, so that it has come by the time the first reply is priced.
func (c *OpenAIClient) prefetchPrices() {
	if ep := c.endpoint(c.Model()); isOpenRouterURL(ep.baseURL) {
		c.openRouterStart(ep.baseURL, ep.key)
	}
}

func (c *OpenAIClient) openRouterStart(base, key string) chan struct{} {
	pr := &c.pricing
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.orStarted && pr.orBase == base {
		return pr.orDone
	}
	pr.orStarted, pr.orBase, pr.orDone, pr.orList = true, base, make(chan struct{}), nil
	done := pr.orDone
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), openRouterListTimeout)
		defer cancel()
		list, err := fetchOpenRouterPrices(ctx, base, key)
		if err != nil {
			return // priced from the built-in table
		}
		pr.mu.Lock()
		if pr.orBase == base {
			pr.orList = list
		}
		pr.mu.Unlock()
	}()
	return done
}

// openRouterPrice is model's price in OpenRouter's list, fetched at most
// once per client and endpoint.
func (c *OpenAIClient) openRouterPrice(ctx context.Context, base, key, model string) (Price, bool) {
	done := c.openRouterStart(base, key)
	select {
	case <-done:
	case <-ctx.Done():
		return Price{}, false
	}
	c.pricing.mu.Lock()
	defer c.pricing.mu.Unlock()
	p, ok := c.pricing.orList[model]
	return p, ok
}

// orModels is OpenRouter's GET /models: prices are USD per token, as
// decimal strings.
type orModels struct {
	Data []struct {
		ID      string `json:"id"`
		Pricing struct {
			Prompt     string `json:"prompt"`
			Completion string `json:"completion"`
			CacheRead  string `json:"input_cache_read"`
			CacheWrite string `json:"input_cache_write"`
		} `json:"pricing"`
	} `json:"data"`
}

func fetchOpenRouterPrices(ctx context.Context, base, key string) (map[string]Price, error) {
	var m orModels
	if err := getJSON(ctx, strings.TrimRight(base, "/")+"/models", key, &m); err != nil {
		return nil, err
	}
	perMillion := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || v < 0 {
			return 0
		}
		return v * 1e6
	}
	out := make(map[string]Price, len(m.Data))
	for _, d := range m.Data {
		if d.ID == "" || d.Pricing.Prompt == "" || strings.HasPrefix(strings.TrimSpace(d.Pricing.Prompt), "-") {
			continue // no price, or a router's "-1": the model that answers decides
		}
		p := Price{Input: perMillion(d.Pricing.Prompt), Output: perMillion(d.Pricing.Completion),
			CachedInput: perMillion(d.Pricing.CacheRead), CacheWrite: perMillion(d.Pricing.CacheWrite)}
		if d.Pricing.CacheRead == "" {
			p.CachedInput = p.Input // no cache discount listed
		}
		out[d.ID] = p
	}
	return out, nil
}

// key is the API key of the endpoint requests go to.
func (c *OpenAIClient) key() string { return c.endpoint(c.Model()).key }
