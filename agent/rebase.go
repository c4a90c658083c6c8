package agent

// cacheLedger remembers what the last request sent, to tell what a new
// one adds.
type cacheLedger struct {
	sentBytes int // size of the last request
}

// sent records a request that went out.
func (l *cacheLedger) sent(msgs []Message) { l.sentBytes = requestBytes(msgs) }

// forget starts over: nothing sent yet.
func (l *cacheLedger) forget() { *l = cacheLedger{} }

// maybeRebase rewrites the history without its superseded renderings when
// the cost formula says the session gains by it.
func (c *Conversation) maybeRebase() {
	newBytes := requestBytes(c.Messages()) - c.cache.sentBytes
	if !c.views.shouldRebase(len(c.system), c.history, c.turn, newBytes) {
		return
	}
	c.flush() // the messages as they were first, so a replay shows them
	c.views.rebase(c.history)
	c.rewriteLog()
}

func requestBytes(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + len(m.Role) + 8
	}
	return n
}
