package agent

import (
	"context"
	"strings"

	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/tools/imagefile"
	"github.com/aci-dev/aci/transcript"
	"github.com/aci-dev/aci/windows"
)

// Conversation is everything the model is told, and the one owner of it:
// the history with its window renderings, the summary of what a
// compression folded away, the rebases, the context fitting, the count of
// questions and replies, and the transcript. The loop asks it for the next
// request (Next) and tells it what came back (Received, AddReply,
// AddResults); it asks the model itself only for a summary.
type Conversation struct {
	client Client
	wm     *windows.Manager
	cfg    Config
	emit   func(Event)
	// preCompact is told before a compression (PreCompact hooks); nil: none.
	preCompact func(ctx context.Context, trigger, focus string)

	history []entry
	views   *views
	system  string
	// turn counts the model's replies in the session, for call ids.
	turn int
	// question is the user message of the running turn.
	question string
	attached []imagefile.Image // pictures for the next question (AttachImages)
	// questions counts the questions asked since the last reset; folded,
	// those a compression folded into the summary (forks cannot split them).
	questions, folded int
	marks             []mark // where each question still in the history starts
	// lastPrompt is the size of the last request in tokens, as reported or
	// estimated; it decides when to compress.
	lastPrompt int64
	ctxWindow  Window // the model's context window, as the server reports it (ctxwindow.go)
	// windowAsked: the server was asked for ctxWindow (not before a
	// second request, unless the first might overflow a small window).
	windowAsked bool
	stats       Stats
	cache       cacheLedger // what the provider's prompt cache holds, for rebases (rebase.go)

	log    *recordLog
	logged int // entries of history already in the transcript
	// written is what the transcript restored from holds (Restore), for
	// the writer SetTranscript makes: windows written before are referred to.
	written Session
	// unsaved marks a history restored from elsewhere than the transcript
	// (a fork): its summary and messages are written with the next flush.
	unsaved bool
}

func newConversation(client Client, wm *windows.Manager, cfg Config, emit func(Event)) *Conversation {
	c := &Conversation{client: client, wm: wm, cfg: cfg, emit: emit}
	c.views = newViews(wm, cfg.Redact)
	c.system = prompt.System(cfg.BasePrompt, cfg.Hints)
	c.cache = newCacheLedger(cfg.CacheTTL, cfg.Clock)
	return c
}

// Ask begins a turn with the person's question.
func (c *Conversation) Ask(question string) {
	c.questions++
	c.marks = append(c.marks, mark{question: c.questions, at: len(c.history), turn: c.turn, windows: c.wm.Snapshot(), views: c.views.snapshot()})
	c.appendEntry("user", question)
	c.history[len(c.history)-1].Images, c.attached = c.attached, nil
	c.question = question
}

// Next is the next request: the windows' changes rendered into the last
// message, then the messages the person sent during the turn (steers),
// the history compressed if it outgrew the context, rebased if that pays,
// and written to the transcript.
func (c *Conversation) Next(ctx context.Context, steers ...string) ([]Message, error) {
	c.views.refresh(&c.history[len(c.history)-1])
	for _, t := range steers {
		c.appendEntry("user", steerText(t))
	}
	// Also mid-turn: the turn goes on from the summary.
	if err := c.fitContext(ctx); err != nil {
		return nil, err
	}
	return c.request(), nil
}

// Overflowed is the request again after the model refused the last one
// as too long for its context: the history is compressed first.
func (c *Conversation) Overflowed(ctx context.Context) ([]Message, error) {
	c.beforeCompress(ctx, "auto", "")
	if _, err := c.compress(ctx, "", true); err != nil {
		return nil, err
	}
	return c.request(), nil
}

// request decides on a rebase, writes the transcript and returns the
// messages to send.
func (c *Conversation) request() []Message {
	c.maybeRebase()
	c.flush()
	return c.Messages()
}

// Received records that msgs were sent and reply came back: the history
// sent is frozen, the windows hear what the model saw, the usage is
// counted. It returns the reply's number, for its call ids.
func (c *Conversation) Received(msgs []Message, reply *Reply) int {
	c.cache.sent(msgs)
	for i := range c.history {
		c.history[i].freeze()
	}
	c.views.sent()
	if !reply.HasUsage {
		reply.Usage.PromptTokens = estimateTokens(msgs)
	}
	c.record(*reply)
	c.turn++
	c.views.step++
	return c.turn
}

// AddReply stores the model's reply.
func (c *Conversation) AddReply(text string) { c.appendEntry("assistant", text) }

// AddResults stores a batch's results (or a nudge to go on) as a user
// message.
func (c *Conversation) AddResults(text string) { c.appendEntry("user", text) }

// Touch records that an action is about to run on window id.
func (c *Conversation) Touch(id string) { c.views.touch(id) }

// interruptedNote ends a turn the person cancelled, so the history stays
// well-formed and the model knows why its work stopped.
const interruptedNote = "[interrupted by the user]"

// Interrupted ends the turn the person cancelled, keeping what the model
// had streamed of its reply.
func (c *Conversation) Interrupted(partial string) {
	text := strings.TrimSpace(partial)
	if text != "" {
		text += "\n"
	}
	c.appendEntry("assistant", text+interruptedNote)
}

// Turns counts the questions asked since the last reset.
func (c *Conversation) Turns() int { return c.questions }

// appendEntry adds to the history, secrets removed.
func (c *Conversation) appendEntry(role, text string) {
	c.history = append(c.history, entry{Role: role, Text: c.cfg.Redact(text)})
}

// History returns the conversation so far, as the model reads it.
func (c *Conversation) History() []Message {
	out := make([]Message, len(c.history))
	for i := range c.history {
		out[i] = c.history[i].message()
	}
	return out
}

// Messages is the next request as it stands: system, then the history.
func (c *Conversation) Messages() []Message {
	msgs := make([]Message, 0, len(c.history)+1)
	msgs = append(msgs, Message{Role: "system", Content: c.system})
	return append(msgs, c.History()...)
}

// Reset forgets the history and summary and closes every window but the
// launcher.
func (c *Conversation) Reset() {
	c.history, c.logged, c.unsaved = nil, 0, false
	c.lastPrompt = 0
	c.questions, c.folded, c.marks = 0, 0, nil
	c.setSummary("")
	c.wm.Reset()
	c.views = newViews(c.wm, c.cfg.Redact)
	c.cache.forget()
	c.log.write(Record{Type: "reset"})
}

// Restore continues a session: its history, summary and reply count. The
// caller reopens its windows first; windows the history shows that are
// not open get a closed rendering in the next request. A session that did
// not come from this conversation's transcript (a fork) is written to it
// whole.
func (c *Conversation) Restore(s Session) {
	c.history = cloneEntries(s.History)
	c.logged = len(c.history)
	c.unsaved = s.Path == ""
	c.turn = s.Turn
	c.setSummary(s.Summary)
	c.views = newViews(c.wm, c.cfg.Redact)
	for _, e := range c.history {
		for _, el := range e.Elements {
			c.views.orphans[el.ID] = true
		}
	}
	delete(c.views.orphans, "launcher")
	c.restoreMarks(s.Questions)
	c.written = Session{Path: s.Path, Windows: s.Windows, rendered: s.rendered}
	c.cache.forget()
	c.cache.lastUse = s.LastRequest
	c.cache.sentBytes = requestBytes(c.Messages())
	c.flush()
}

// setSummary puts a summary of earlier conversation in the system message.
func (c *Conversation) setSummary(summary string) {
	c.cfg.Hints.Summary = summary
	c.system = prompt.System(c.cfg.BasePrompt, c.cfg.Hints)
}

// SetTranscript makes the conversation write itself to t as it goes;
// when t is the file the conversation was restored from, its writer goes
// on from what that holds (windows written before are referred to).
func (c *Conversation) SetTranscript(t *transcript.File) {
	held := Session{}
	if t != nil && c.written.Path == t.Path {
		held = c.written
	}
	c.log, c.written = nil, Session{}
	if t != nil {
		c.log = newRecordLog(t, held)
	}
	c.flush()
}

// flush writes the entries not yet in the transcript, and the windows.
func (c *Conversation) flush() {
	if c.log == nil {
		return
	}
	if c.unsaved {
		// A fork's own transcript starts with what it was forked with.
		if c.cfg.Hints.Summary != "" {
			c.log.write(Record{Type: "summary", Content: c.cfg.Hints.Summary})
		}
		c.logged, c.unsaved = 0, false
	}
	if c.logged >= len(c.history) {
		return
	}
	for i := c.logged; i < len(c.history); i++ {
		e := c.history[i]
		turn := 0
		if e.Role == "assistant" {
			turn = c.turn
		}
		c.log.write(Record{Type: "message", Role: e.Role, Content: e.Text, Elements: e.Elements, Images: e.Images, Turn: turn})
	}
	c.logged = len(c.history)
	c.log.write(Record{Type: "windows", Windows: c.wm.Snapshot()})
}

// rewriteLog records a history rewritten in place (a rebase).
func (c *Conversation) rewriteLog() {
	if c.log == nil {
		return
	}
	c.log.write(Record{Type: "rewrite", History: c.history})
	c.logged = len(c.history)
}

// record counts a response's usage and tells the person and the
// transcript.
func (c *Conversation) record(r Reply) {
	c.stats.Steps++
	c.stats.PromptTokens += r.Usage.PromptTokens
	c.stats.CompletionTokens += r.Usage.CompletionTokens
	c.stats.CachedTokens += r.Usage.CachedTokens
	c.stats.LastPrompt = r.Usage.PromptTokens
	c.stats.LastCached = r.Usage.CachedTokens
	c.stats.Cost = c.stats.Cost.Add(r.Usage.Cost)
	c.lastPrompt = r.Usage.PromptTokens
	c.emit(Event{Kind: EventUsage, Usage: r.Usage})
	u := r.Usage
	c.log.write(Record{Type: "usage", Usage: &u})
}

// Stats returns the usage so far.
func (c *Conversation) Stats() Stats {
	s := c.stats
	s.Rebases = c.views.rebases
	return s
}

// cloneEntries copies entries so that no rendering is shared.
func cloneEntries(src []entry) []entry {
	out := make([]entry, len(src))
	for i, e := range src {
		e.Elements = append([]element(nil), e.Elements...)
		e.content = ""
		out[i] = e
	}
	return out
}
