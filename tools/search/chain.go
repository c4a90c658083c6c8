package search

import (
	"context"
	"errors"
	"strings"
	"sync"
)

// Answer is what a Chain got for one query: the engine that answered and
// its page, or, when none could, why each failed.
type Answer struct {
	Engine string
	Page   Page
	Failed []string // why, naming the engine, one per engine that could not answer
	Cached bool     // from the session's cache: no request was sent
}

// Gate judges an engine's endpoint before it is asked: nil lets it, an
// error says why not (a deny rule).
type Gate func(endpoint string) error

// Chain asks its engines in order until one answers, and remembers every
// answer: the same query (or next page) asked again sends no request.
type Chain struct {
	engines []Engine

	mu    sync.Mutex
	cache map[cacheKey]Answer
}

type cacheKey struct{ engine, query, cursor string }

// NewChain tries engines in the order given.
func NewChain(engines ...Engine) *Chain {
	return &Chain{engines: engines, cache: map[cacheKey]Answer{}}
}

// Engines names the chain's engines, in order.
func (c *Chain) Engines() []string {
	var out []string
	for _, e := range c.engines {
		out = append(out, e.Name())
	}
	return out
}

// Search asks each engine in turn for query's first page.
func (c *Chain) Search(ctx context.Context, query string, gate Gate) (Answer, error) {
	whole := cacheKey{"", normalize(query), ""}
	if a, ok := c.cached(whole); ok {
		return a, nil
	}
	var ans Answer
	for _, e := range c.engines {
		a, err := c.ask(ctx, e, query, "", gate)
		if err == nil {
			a.Failed = ans.Failed
			if !a.Cached {
				c.keep(whole, a)
			}
			return a, nil
		}
		if ctx.Err() != nil {
			return ans, ctx.Err() // the person stopped the turn
		}
		why := err.Error()
		if !strings.HasPrefix(why, e.Name()) {
			why = e.Name() + ": " + why // a message that does not name it (a deny rule)
		}
		ans.Failed = append(ans.Failed, why)
	}
	if len(c.engines) == 0 {
		ans.Failed = []string{"no search engine is configured"}
	}
	return ans, nil
}

// More asks the engine named for the page after cursor.
func (c *Chain) More(ctx context.Context, engine, query, cursor string, gate Gate) (Answer, error) {
	for _, e := range c.engines {
		if e.Name() == engine {
			return c.ask(ctx, e, query, cursor, gate)
		}
	}
	return Answer{}, errors.New("no engine " + engine)
}

func (c *Chain) ask(ctx context.Context, e Engine, query, cursor string, gate Gate) (Answer, error) {
	key := cacheKey{e.Name(), normalize(query), cursor}
	if a, ok := c.cached(key); ok {
		return a, nil
	}
	if gate != nil {
		if err := gate(e.Endpoint()); err != nil {
			return Answer{}, err
		}
	}
	page, err := e.Search(ctx, query, cursor)
	if err != nil {
		return Answer{}, err
	}
	a := Answer{Engine: e.Name(), Page: page}
	c.keep(key, a)
	return a, nil
}

// cached is the answer kept for key, marked as from the cache.
func (c *Chain) cached(key cacheKey) (Answer, bool) {
	c.mu.Lock()
	a, ok := c.cache[key]
	c.mu.Unlock()
	a.Cached = ok
	return a, ok
}

func (c *Chain) keep(key cacheKey, a Answer) {
	c.mu.Lock()
	c.cache[key] = a
	c.mu.Unlock()
}

// normalize makes queries that differ only in spacing and case one.
func normalize(q string) string { return strings.ToLower(strings.Join(strings.Fields(q), " ")) }
