package agent

import "time"

// A rebase rewrites the history without the renderings later ones
// superseded: that request's tail after the first dropped rendering is
// sent uncached once, and every later request is smaller. Whether later
// requests come is unknown, so the choice is made online, the way ski
// rental is decided: keep paying the superseded bytes' cached price on
// each request until what they have cost equals what a rebase costs, then
// rebase. A session never pays more than twice what the better choice in
// hindsight would have cost it on these bytes. When the provider's cache
// has likely expired anyway (an idle gap longer than its lifetime), the
// whole request goes uncached whatever aci does, and a rebase is free.

const (
	// cachedPrice is what a cached byte costs against an uncached one.
	cachedPrice = 0.1
	// budgetShare is the part of the compression threshold (itself three
	// quarters of the model's context window, or ACI_COMPRESS_TOKENS) that
	// a request may fill before a rebase is made whatever it has cost so
	// far: past it, carrying what is stale will soon cost a compression, a
	// whole uncached request and a summary, far more than re-sending.
	budgetShare = 2.0 / 3
	// DefaultCacheTTL is how long providers keep a prompt prefix cached
	// after its last use (OpenAI and Anthropic: about five minutes).
	DefaultCacheTTL = 5 * time.Minute
)

// cacheLedger keeps what the rebase decision needs to know of the
// provider's prompt cache and of what superseded renderings have cost.
type cacheLedger struct {
	ttl   time.Duration // < 0: the cache never expires
	clock func() time.Time
	// lastUse is when the provider last read the session's prefix (a reply
	// came back); zero when unknown.
	lastUse   time.Time
	sentBytes int     // size of the last request
	rent      float64 // cached price paid for superseded renderings since the last rebase
	off       bool    // never rebase (the tests' comparison)
}

func newCacheLedger(ttl time.Duration, clock func() time.Time) cacheLedger {
	if ttl == 0 {
		ttl = DefaultCacheTTL
	}
	if clock == nil {
		clock = time.Now
	}
	return cacheLedger{ttl: ttl, clock: clock}
}

// sent records a request whose reply came back.
func (l *cacheLedger) sent(msgs []Message) {
	l.sentBytes = requestBytes(msgs)
	l.used()
}

// used records that the provider just read the session's prefix.
func (l *cacheLedger) used() { l.lastUse = l.clock() }

// expired reports whether the cache has likely lost the session's prefix:
// the last use is unknown or longer ago than the cache's lifetime.
func (l *cacheLedger) expired() bool {
	if l.lastUse.IsZero() {
		return true
	}
	return l.ttl > 0 && l.clock().Sub(l.lastUse) > l.ttl
}

// forget starts over: nothing sent yet, nothing paid.
func (l *cacheLedger) forget() {
	l.lastUse, l.sentBytes, l.rent = time.Time{}, 0, 0
}

// maybeRebase rebases the history before a request when the superseded
// renderings have cost as much as the rebase would, when the cache has
// likely expired, or when the request passed the context budget;
// otherwise it counts what they cost this request. No fixed size forces
// a rebase: a session that ends with what it read still in view never
// pays for re-sending it.
func (c *Conversation) maybeRebase() {
	p, ok := c.views.plan(len(c.system), c.history)
	if c.cache.off || !ok || p.saved() <= 0 {
		return
	}
	// Bytes the rebase sends uncached that would otherwise be cached:
	// everything after the first dropped rendering but what is new anyway.
	newBytes := max(0, requestBytes(c.Messages())-c.cache.sentBytes)
	cost := float64(max(0, p.total-p.dropped+p.added-p.prefix-newBytes)) * (1 - cachedPrice)
	switch {
	case c.cache.expired():
	case c.overBudget(p):
	case c.cache.rent >= cost:
	default:
		c.cache.rent += cachedPrice * float64(p.saved())
		return
	}
	c.rebase()
}

// rebase rewrites the history without its superseded renderings.
func (c *Conversation) rebase() {
	c.flush() // the messages as they were first, so a replay shows them
	c.views.rebase(c.history)
	c.cache.rent = 0
	c.rewriteLog()
}

// renderBudget is the request size, in tokens, past which renderings are
// cut back by a rebase: a share of the compression threshold, which
// follows the model's context window when it is known or discovered. 0
// when neither the window nor a threshold is known: the rent-or-buy rule
// alone decides.
func (c *Conversation) renderBudget() int64 {
	return int64(float64(c.compressLimit()) * budgetShare)
}

// overBudget reports whether the request passed the render budget and a
// rebase would take a fair share (a quarter) off it.
func (c *Conversation) overBudget(p rebasePlan) bool {
	budget := c.renderBudget()
	return budget > 0 && int64(p.total/4) > budget && p.saved()*4 > p.total
}

// rebaseToFit rebases the history when that alone brings the request
// under limit tokens, so the context window is protected without the loss
// and cost of a compression; it reports whether it did.
func (c *Conversation) rebaseToFit(limit int64) bool {
	p, ok := c.views.plan(len(c.system), c.history)
	if c.cache.off || !ok || p.saved() <= 0 || int64((p.total-p.saved())/4) > limit {
		return false
	}
	c.rebase()
	return true
}

func requestBytes(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + len(m.Role) + 8
	}
	return n
}
