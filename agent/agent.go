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
}

// EventKind says what happened.
type EventKind int

const (
	EventText       EventKind = iota // streamed model text (Text)
	EventReply                       // a whole model reply (Text), after streaming
	EventCall                        // a call is about to run (Call, Title)
	EventResult                      // a call finished (Call, Result)
	EventUsage                       // a response's usage (Usage)
	EventCompressed                  // history was compressed (Text: summary, Usage: before/after)
)

// Event is something the UI may show.
type Event struct {
	Kind   EventKind
	Text   string
	Call   protocol.Call
	Title  string // the window's title, for EventCall
	Result protocol.Result
	Usage  Usage
}

// Agent is one session: its history, its windows and its model.
type Agent struct {
	client  Client
	wm      *windows.Manager
	cfg     Config
	emit    func(Event)
	history []Message
	system  string
	turn    int // model replies in this session, for call ids
	stats   Stats
	// lastPrompt is the size of the last request in tokens, as reported or
	// estimated; it decides when to compress.
	lastPrompt int64
	question   string // the user message of the running turn
	log        *Transcript
}

// SetTranscript makes the agent write its session to t as it goes.
func (a *Agent) SetTranscript(t *Transcript) { a.log = t }

// Restore continues a session written earlier: its history, summary and
// reply count. The caller reopens its windows.
func (a *Agent) Restore(s Session) {
	a.history = append([]Message(nil), s.History...)
	a.turn = s.Turn
	a.cfg.Hints.Summary = s.Summary
	a.system = prompt.System(a.cfg.BasePrompt, a.cfg.Hints)
}

// appendMessage adds to the history and the transcript together.
func (a *Agent) appendMessage(m Message) {
	a.history = append(a.history, m)
	turn := 0
	if m.Role == "assistant" {
		turn = a.turn
	}
	a.log.Write(Record{Type: "message", Role: m.Role, Content: m.Content, Turn: turn})
}

// logWindows records the open windows, so a resumed session reopens them.
func (a *Agent) logWindows() {
	if a.log == nil {
		return
	}
	var ws []WindowRecord
	for _, w := range a.wm.Windows()[1:] {
		ws = append(ws, WindowRecord{ID: w.ID(), App: w.App(), Target: w.Title()})
	}
	a.log.Write(Record{Type: "windows", Windows: ws})
}

// Stats counts a session's usage.
type Stats struct {
	Steps            int
	PromptTokens     int64
	CompletionTokens int64
	CachedTokens     int64
	LastPrompt       int64
}

// New makes an agent. emit receives events; it may be nil.
func New(client Client, wm *windows.Manager, cfg Config, emit func(Event)) *Agent {
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = 50
	}
	if emit == nil {
		emit = func(Event) {}
	}
	a := &Agent{client: client, wm: wm, cfg: cfg, emit: emit}
	a.system = prompt.System(cfg.BasePrompt, cfg.Hints)
	return a
}

// Stats returns the usage so far.
func (a *Agent) Stats() Stats { return a.stats }

// History returns a copy of the conversation so far.
func (a *Agent) History() []Message { return append([]Message(nil), a.history...) }

// Windows returns the window manager.
func (a *Agent) Windows() *windows.Manager { return a.wm }

// Reset forgets the history and summary and closes every window but the
// launcher.
func (a *Agent) Reset() {
	a.history = nil
	a.lastPrompt = 0
	a.cfg.Hints.Summary = ""
	a.system = prompt.System(a.cfg.BasePrompt, a.cfg.Hints)
	a.wm.Reset()
	a.log.Write(Record{Type: "reset"})
}

// Messages builds the next request: system, history, then the live windows.
func (a *Agent) Messages() []Message {
	msgs := make([]Message, 0, len(a.history)+2)
	msgs = append(msgs, Message{Role: "system", Content: a.system})
	msgs = append(msgs, a.history...)
	return append(msgs, Message{Role: "user", Content: prompt.WindowsBlock(a.wm.Windows())})
}

// Run answers one user message: it calls the model and runs its actions
// until a reply has no tool call, or the step limit is reached.
func (a *Agent) Run(ctx context.Context, question string) (string, error) {
	a.appendMessage(Message{Role: "user", Content: question})
	a.question = question
	for step := 1; ; step++ {
		if step > a.cfg.MaxSteps {
			return "", fmt.Errorf("%w: %d model calls in this turn without a final answer (raise --max-steps or ACI_MAX_STEPS)", ErrStepLimit, a.cfg.MaxSteps)
		}
		if a.needsCompression() {
			// Also mid-turn: the turn goes on from the summary.
			if _, err := a.compress(ctx, "", false); err != nil {
				return "", err
			}
		}
		reply, err := a.complete(ctx)
		if err != nil {
			return "", err
		}
		a.turn++
		a.record(reply)
		a.emit(Event{Kind: EventReply, Text: reply.Content})
		parsed := protocol.Parse(reply.Content, a.turn)
		a.appendMessage(Message{Role: "assistant", Content: reply.Content})
		if !parsed.HasCalls() {
			return parsed.Text, nil
		}
		results := a.runBatch(ctx, parsed.Calls)
		a.appendMessage(Message{Role: "user", Content: protocol.RenderResults(results)})
		a.logWindows()
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
	a.appendMessage(Message{Role: "assistant", Content: text + interruptedNote})
}

// complete sends the next request. A request refused as too long for the
// model's context compresses the history and is sent once more.
func (a *Agent) complete(ctx context.Context) (Reply, error) {
	for retried := false; ; retried = true {
		msgs := a.Messages()
		var partial strings.Builder
		reply, err := a.client.Complete(ctx, msgs, func(s string) {
			partial.WriteString(s)
			a.emit(Event{Kind: EventText, Text: s})
		})
		if err == nil {
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

func (a *Agent) record(r Reply) {
	a.stats.Steps++
	a.stats.PromptTokens += r.Usage.PromptTokens
	a.stats.CompletionTokens += r.Usage.CompletionTokens
	a.stats.CachedTokens += r.Usage.CachedTokens
	a.stats.LastPrompt = r.Usage.PromptTokens
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
		switch {
		case c.Err != "":
			res.Status, res.Text = protocol.StatusError, c.Err
		case ctx.Err() != nil:
			res.Status, res.Text = protocol.StatusError, "not run: the turn was interrupted"
		default:
			out := a.wm.Execute(ctx, c.WindowID, c.ActionID, c.Params)
			res.Status, res.Text = out.Status, out.Text
		}
		a.emit(Event{Kind: EventResult, Call: c, Result: res})
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
