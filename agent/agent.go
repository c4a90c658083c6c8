package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// ErrStepLimit ends a turn that made too many model calls.
var ErrStepLimit = errors.New("step limit reached")

// Config holds the loop's settings.
type Config struct {
	BasePrompt     string // SYSTEM_PROMPT.md
	Hints          prompt.Hints
	MaxSteps       int   // model calls per user turn
	CompressTokens int64 // compress once a response's prompt_tokens exceeds this
	// Redact, when set, removes secrets (the API key in any encoding) from
	// everything that enters the history or reaches the person.
	Redact func(string) string
}

// EventKind says what happened.
type EventKind int

const (
	EventText       EventKind = iota // streamed model text (Text)
	EventReply                       // a whole model reply (Text, Parsed), after streaming
	EventCall                        // a call is about to run (Call, Title)
	EventResult                      // a call finished (Call, Result, Detail)
	EventUsage                       // a response's usage (Usage)
	EventCompressed                  // history was compressed (Compression)
	EventReasoning                   // streamed reasoning (Text): shown dim, never stored
	EventNotice                      // aci nudged the model or stopped a loop (Text: one line)
	EventRequest                     // a model request is about to be sent (the batch before it, if any, has ended)
)

// Event is something the UI may show.
type Event struct {
	Kind        EventKind
	Text        string
	Parsed      protocol.Parsed // EventReply: the reply split into prose and calls
	Call        protocol.Call
	Title       string // the window's title, for EventCall
	Result      protocol.Result
	Detail      windows.Result // EventResult: what the action did, for the person (diff, output)
	Usage       Usage
	Compression *Compression
}

// Agent is one session: its history, its windows and its model.
type Agent struct {
	client  Client
	wm      *windows.Manager
	cfg     Config
	emit    func(Event)
	history []entry
	views   *views
	system  string
	turn    int // model replies in this session, for call ids
	stats   Stats
	// lastPrompt is the size of the last request in tokens, as reported or
	// estimated; it decides when to compress.
	lastPrompt int64
	question   string // the user message of the running turn
	log        *Transcript
	logged     int // entries of history already in the transcript
	sentBytes  int // size of the last request, to tell what a new one adds

	ctxWindow Window    // the model's context window, as the server reports it (ctxwindow.go)
	watch     turnWatch // loops and reasoning-only replies in this turn (loops.go)
}

// SetTranscript makes the agent write its session to t as it goes.
func (a *Agent) SetTranscript(t *Transcript) { a.log = t }

// Restore continues a session written earlier: its history, summary and
// reply count. The caller reopens its windows first; windows the history
// shows that are not open get a closed rendering in the next request.
func (a *Agent) Restore(s Session) {
	a.history = append([]entry(nil), s.History...)
	a.logged = len(a.history)
	a.turn = s.Turn
	a.cfg.Hints.Summary = s.Summary
	a.system = prompt.System(a.cfg.BasePrompt, a.cfg.Hints)
	a.views = newViews(a.wm, a.cfg.Redact)
	for _, e := range a.history {
		for _, el := range e.Elements {
			a.views.orphans[el.ID] = true
		}
	}
	delete(a.views.orphans, "launcher")
}

// appendEntry adds to the history.
func (a *Agent) appendEntry(role, text string) {
	a.history = append(a.history, entry{Role: role, Text: a.cfg.Redact(text)})
}

// flushLog writes the entries not yet in the transcript, and the windows.
func (a *Agent) flushLog() {
	if a.log == nil || a.logged >= len(a.history) {
		return
	}
	for i := a.logged; i < len(a.history); i++ {
		e := a.history[i]
		turn := 0
		if e.Role == "assistant" {
			turn = a.turn
		}
		a.log.Write(Record{Type: "message", Role: e.Role, Content: e.Text, Elements: e.Elements, Turn: turn})
	}
	a.logged = len(a.history)
	a.log.Write(Record{Type: "windows", Windows: a.wm.Snapshot()})
}

// rewriteLog records a history rewritten in place (a rebase).
func (a *Agent) rewriteLog() {
	if a.log == nil {
		return
	}
	a.log.Write(Record{Type: "rewrite", History: a.history})
	a.logged = len(a.history)
}

// Stats counts a session's usage.
type Stats struct {
	Steps            int
	PromptTokens     int64
	CompletionTokens int64
	CachedTokens     int64
	LastPrompt       int64
	LastCached       int64
	Rebases          int
}

// New makes an agent. emit receives events; it may be nil.
func New(client Client, wm *windows.Manager, cfg Config, emit func(Event)) *Agent {
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = 50
	}
	if emit == nil {
		emit = func(Event) {}
	}
	if cfg.Redact == nil {
		cfg.Redact = func(s string) string { return s }
	}
	a := &Agent{client: client, wm: wm, cfg: cfg, emit: emit}
	a.views = newViews(wm, cfg.Redact)
	a.system = prompt.System(cfg.BasePrompt, cfg.Hints)
	return a
}

// Stats returns the usage so far.
func (a *Agent) Stats() Stats {
	s := a.stats
	s.Rebases = a.views.rebases
	return s
}

// History returns the conversation so far, as the model reads it.
func (a *Agent) History() []Message {
	out := make([]Message, len(a.history))
	for i := range a.history {
		out[i] = a.history[i].message()
	}
	return out
}

// Windows returns the window manager.
func (a *Agent) Windows() *windows.Manager { return a.wm }

// Reset forgets the history and summary and closes every window but the
// launcher.
func (a *Agent) Reset() {
	a.history, a.logged = nil, 0
	a.lastPrompt = 0
	a.cfg.Hints.Summary = ""
	a.system = prompt.System(a.cfg.BasePrompt, a.cfg.Hints)
	a.wm.Reset()
	a.views = newViews(a.wm, a.cfg.Redact)
	a.log.Write(Record{Type: "reset"})
}

// Messages is the next request as it stands: system, then the history.
func (a *Agent) Messages() []Message {
	msgs := make([]Message, 0, len(a.history)+1)
	msgs = append(msgs, Message{Role: "system", Content: a.system})
	return append(msgs, a.History()...)
}

// Run answers one user message: it calls the model and runs its actions
// until a reply has no tool call, or the step limit is reached.
func (a *Agent) Run(ctx context.Context, question string) (string, error) {
	defer a.flushLog()
	a.appendEntry("user", question)
	a.question = question
	a.watch = turnWatch{}
	for step := 1; ; step++ {
		if step > a.cfg.MaxSteps {
			calls := fmt.Sprintf("%d model calls", a.cfg.MaxSteps)
			if a.cfg.MaxSteps == 1 {
				calls = "1 model call"
			}
			return "", fmt.Errorf("%w: %s in this turn without a final answer (raise --max-steps or ACI_MAX_STEPS)", ErrStepLimit, calls)
		}
		a.views.refresh(&a.history[len(a.history)-1])
		// Also mid-turn: the turn goes on from the summary.
		if err := a.fitContext(ctx); err != nil {
			return "", err
		}
		reply, err := a.complete(ctx)
		if err != nil {
			return "", err
		}
		a.turn++
		a.views.step++
		a.record(reply)
		parsed := protocol.Parse(reply.Content, a.turn)
		a.emit(Event{Kind: EventReply, Text: reply.Content, Parsed: parsed})
		nudge, store, err := a.watch.afterReply(reply, parsed)
		if store {
			a.appendEntry("assistant", reply.Content)
		}
		if err != nil {
			return "", err
		}
		if nudge != "" {
			a.emit(Event{Kind: EventNotice, Text: "asking the model to go on: " + noticeOf(nudge)})
			a.appendEntry("user", nudge)
			continue
		}
		if !parsed.HasCalls() {
			return parsed.Text, nil
		}
		results := a.runBatch(ctx, parsed.Calls)
		hint, failing := a.watch.afterBatch(parsed.Calls, results)
		if hint != "" {
			a.emit(Event{Kind: EventNotice, Text: noticeOf(hint)})
		}
		a.appendEntry("user", protocol.RenderResults(results)+hint)
		if failing != nil {
			return "", failing
		}
		if err := ctx.Err(); err != nil {
			a.markInterrupted("")
			return "", err
		}
	}
}

// interruptedNote ends a turn the person cancelled, so the history stays
// well-formed and the model knows why its work stopped.
const interruptedNote = "[interrupted by the user]"

func (a *Agent) markInterrupted(partial string) {
	text := strings.TrimSpace(partial)
	if text != "" {
		text += "\n"
	}
	a.appendEntry("assistant", text+interruptedNote)
}

// complete sends the next request. A request refused as too long for the
// model's context compresses the history and is sent once more.
func (a *Agent) complete(ctx context.Context) (Reply, error) {
	for retried := false; ; retried = true {
		a.maybeRebase()
		a.flushLog()
		msgs := a.Messages()
		a.emit(Event{Kind: EventRequest})
		var partial strings.Builder
		think := a.thinkStream()
		reply, err := a.client.Complete(withReasoningSink(ctx, think.reasoning), msgs, func(s string) {
			partial.WriteString(s)
			think.write(s)
		})
		think.flush()
		if err == nil {
			reply = splitThink(reply)
			a.sentBytes = requestBytes(msgs)
			for i := range a.history {
				a.history[i].freeze()
			}
			a.views.sent()
			if !reply.HasUsage {
				reply.Usage.PromptTokens = estimateTokens(msgs)
			}
			return reply, nil
		}
		if ctx.Err() != nil {
			a.markInterrupted(partial.String())
			return Reply{}, err
		}
		if retried || !isContextOverflow(err) || len(a.history) == 0 {
			return Reply{}, err
		}
		if _, cerr := a.compress(ctx, "", true); cerr != nil {
			return Reply{}, fmt.Errorf("%w (and compressing the history failed: %v)", err, cerr)
		}
	}
}

// maybeRebase rewrites the history without its superseded renderings when
// the cost formula says the session gains by it.
func (a *Agent) maybeRebase() {
	newBytes := requestBytes(a.Messages()) - a.sentBytes
	if !a.views.shouldRebase(len(a.system), a.history, a.turn, newBytes) {
		return
	}
	a.views.rebase(a.history)
	a.rewriteLog()
}

func requestBytes(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + len(m.Role) + 8
	}
	return n
}

func (a *Agent) record(r Reply) {
	a.stats.Steps++
	a.stats.PromptTokens += r.Usage.PromptTokens
	a.stats.CompletionTokens += r.Usage.CompletionTokens
	a.stats.CachedTokens += r.Usage.CachedTokens
	a.stats.LastPrompt = r.Usage.PromptTokens
	a.stats.LastCached = r.Usage.CachedTokens
	a.lastPrompt = r.Usage.PromptTokens
	a.emit(Event{Kind: EventUsage, Usage: r.Usage})
	u := r.Usage
	a.log.Write(Record{Type: "usage", Usage: &u})
}

// runBatch runs every call in order, whatever became of the ones before.
func (a *Agent) runBatch(ctx context.Context, calls []protocol.Call) []protocol.Result {
	results := make([]protocol.Result, 0, len(calls))
	for _, c := range calls {
		a.emit(Event{Kind: EventCall, Call: c, Title: a.titleOf(c.WindowID)})
		res := protocol.Result{CallID: c.ID, WindowID: c.WindowID, ActionID: c.ActionID}
		var out windows.Result
		switch {
		case c.Err != "":
			out = windows.Fail("%s", c.Err)
		case ctx.Err() != nil:
			out = windows.Fail("not run: the turn was interrupted")
		default:
			a.views.touch(c.WindowID)
			out = a.wm.Execute(ctx, c.WindowID, c.ActionID, c.Params)
		}
		out.Text, out.Output, out.Diff = a.cfg.Redact(out.Text), a.cfg.Redact(out.Output), a.cfg.Redact(out.Diff)
		res.Status, res.Text = out.Status, out.Text
		a.emit(Event{Kind: EventResult, Call: c, Result: res, Detail: out})
		a.log.Write(Record{Type: "call", Call: &CallRecord{ID: c.ID, WindowID: c.WindowID, ActionID: c.ActionID, Status: res.Status}})
		results = append(results, res)
	}
	return results
}

func (a *Agent) titleOf(id string) string {
	for _, w := range a.wm.Windows() {
		if w.ID() == id {
			return w.Title()
		}
	}
	return ""
}
