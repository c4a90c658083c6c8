package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/transcript"
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
	// CacheTTL is how long the provider keeps a prompt cached after its
	// last use (0: DefaultCacheTTL; negative: it never expires). After an
	// idle gap longer than this, a rebase costs nothing.
	CacheTTL time.Duration
	// Clock tells the time (nil: time.Now); tests set it.
	Clock func() time.Time
	// Budget, when set, is asked before each model request: an error (a
	// *LimitError) ends the turn there (limits.go).
	Budget func() error
	// Answer, when set, checks the final answer (--output-schema): one
	// that fails is sent back once with the errors (limits.go).
	Answer AnswerChecker
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
	EventSteer                       // a message the person sent during the turn goes to the model (Text, Step)
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
	Step        int // EventSteer: the turn's model request, from 1, that carries it
}

// Agent is one session: the loop that asks the model and runs its
// actions, over a conversation (what the model is told) and its windows.
type Agent struct {
	client Client
	wm     *windows.Manager
	cfg    Config
	emit   func(Event)
	conv   *Conversation
	watch  turnWatch       // loops and reasoning-only replies in this turn (loops.go)
	steer  func() []string // messages the person sent during the turn (steer.go)
	hooks  Hooks           // the person's hooks (hooks.go); nil: none
	stops  int             // times Stop hooks made this turn go on
	// structured is the last turn's answer as checked by cfg.Answer.
	structured json.RawMessage
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
	Cost             Cost // money, and what the cache saved (prices.go)
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
	return &Agent{client: client, wm: wm, cfg: cfg, emit: emit, conv: newConversation(client, wm, cfg, emit)}
}

// Conversation returns what the model is told: the history and all that
// keeps it (forks start from it).
func (a *Agent) Conversation() *Conversation { return a.conv }

// SetTranscript makes the agent write its session to t as it goes.
func (a *Agent) SetTranscript(t *transcript.File) { a.conv.SetTranscript(t) }

// Restore continues a session written earlier (or forked): its history,
// summary and reply count. The caller reopens its windows first; windows
// the history shows that are not open get a closed rendering in the next
// request.
func (a *Agent) Restore(s Session) { a.conv.Restore(s) }

// Fork copies the first turns turns of the conversation into a session
// for Restore or Resume (see Conversation.Fork).
func (a *Agent) Fork(turns int) (Session, error) { return a.conv.Fork(turns) }

// Stats returns the usage so far.
func (a *Agent) Stats() Stats { return a.conv.Stats() }

// History returns the conversation so far, as the model reads it.
func (a *Agent) History() []Message { return a.conv.History() }

// Messages is the next request as it stands: system, then the history.
func (a *Agent) Messages() []Message { return a.conv.Messages() }

// Windows returns the window manager.
func (a *Agent) Windows() *windows.Manager { return a.wm }

// Reset forgets the history and summary and closes every window but the
// launcher.
func (a *Agent) Reset() { a.conv.Reset() }

// Compact compresses the history on demand (the REPL's /compact); focus,
// if given, says what the summary should keep in particular.
func (a *Agent) Compact(ctx context.Context, focus string) (Compression, error) {
	return a.conv.Compact(ctx, focus)
}

// ContextWindow returns the model's window as last asked (Tokens 0 when
// unknown), for /usage beside Stats().LastPrompt.
func (a *Agent) ContextWindow() Window { return a.conv.ContextWindow() }

// Run answers one user message: it calls the model and runs its actions
// until a reply has no tool call, or the step limit is reached.
func (a *Agent) Run(ctx context.Context, question string) (string, error) {
	c := a.conv
	defer c.flush()
	c.Ask(question)
	a.watch, a.stops, a.structured = turnWatch{}, 0, nil
	answerOnly := false // the next request asks for the answer alone (structured output)
	for step := 1; ; step++ {
		if step > a.cfg.MaxSteps {
			return "", stepLimit(a.cfg.MaxSteps)
		}
		if a.cfg.Budget != nil {
			if err := a.cfg.Budget(); err != nil {
				return "", err
			}
		}
		steers := a.takeSteers()
		msgs, err := c.Next(ctx, steers...)
		if err != nil {
			return "", err
		}
		for _, t := range steers {
			a.emit(Event{Kind: EventSteer, Text: a.cfg.Redact(t), Step: step})
		}
		rctx := ctx
		if answerOnly {
			rctx = withResponseFormat(ctx, a.cfg.Answer)
		}
		reply, msgs, err := a.complete(rctx, msgs)
		if err != nil {
			return "", err
		}
		turn := c.Received(msgs, &reply)
		parsed := protocol.Parse(reply.Content, turn)
		a.emit(Event{Kind: EventReply, Text: reply.Content, Parsed: parsed})
		nudge, store, err := a.watch.afterReply(reply, parsed)
		if store {
			c.AddReply(reply.Content)
		}
		if err != nil {
			return "", err
		}
		if nudge != "" {
			a.emit(Event{Kind: EventNotice, Text: "asking the model to go on: " + noticeOf(nudge)})
			c.AddResults(nudge)
			continue
		}
		if !parsed.HasCalls() {
			if more := a.stopHook(ctx, parsed.Text); more != "" {
				c.AddResults(more)
				continue
			}
			if again, err := a.checkAnswer(parsed.Text); err != nil {
				return "", err
			} else if again != "" {
				c.AddResults(again)
				answerOnly = true
				continue
			}
			return parsed.Text, nil
		}
		results := a.runBatch(ctx, parsed.Calls)
		hint, failing := a.watch.afterBatch(parsed.Calls, results)
		if hint != "" {
			a.emit(Event{Kind: EventNotice, Text: noticeOf(hint)})
		}
		c.AddResults(protocol.RenderResults(results) + hint)
		if failing != nil {
			return "", failing
		}
		if err := ctx.Err(); err != nil {
			c.Interrupted("")
			return "", err
		}
	}
}

// complete sends a request. One refused as too long for the model's
// context compresses the history and is sent once more: it returns the
// messages that were sent with the reply.
func (a *Agent) complete(ctx context.Context, msgs []Message) (Reply, []Message, error) {
	for retried := false; ; retried = true {
		a.emit(Event{Kind: EventRequest})
		var partial strings.Builder
		think := a.thinkStream()
		reply, err := a.client.Complete(withReasoningSink(ctx, think.reasoning), msgs, func(s string) {
			partial.WriteString(s)
			think.write(s)
		})
		think.flush()
		if err == nil {
			return splitThink(reply), msgs, nil
		}
		if ctx.Err() != nil {
			a.conv.Interrupted(partial.String())
			return Reply{}, nil, err
		}
		if retried || !isContextOverflow(err) || len(a.conv.history) == 0 {
			return Reply{}, nil, err
		}
		var cerr error
		if msgs, cerr = a.conv.Overflowed(ctx); cerr != nil {
			return Reply{}, nil, fmt.Errorf("%w (and compressing the history failed: %v)", err, cerr)
		}
	}
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
			a.conv.Touch(c.WindowID)
			out = a.execute(ctx, c)
		}
		out.Text, out.Output, out.Diff = a.cfg.Redact(out.Text), a.cfg.Redact(out.Output), a.cfg.Redact(out.Diff)
		res.Status, res.Text = out.Status, out.Text
		a.emit(Event{Kind: EventResult, Call: c, Result: res, Detail: out})
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
