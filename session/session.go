package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/hooks"
	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/imagefile"
	"github.com/aci-dev/aci/tools/lsp"
	"github.com/aci-dev/aci/tools/mcp"
	"github.com/aci-dev/aci/tools/rules"
	"github.com/aci-dev/aci/tools/secrets"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/tools/wsenv"
	"github.com/aci-dev/aci/transcript"
	"github.com/aci-dev/aci/windows"
)

// State is where a session's loop stands (docs/protocol.md §7).
type State string

// The states.
const (
	StateIdle             State = "idle"
	StateAwaitingModel    State = "awaiting_model"
	StateAwaitingApproval State = "awaiting_approval"
	StateExecuting        State = "executing"
)

// ErrBusy is a turn asked for while one runs.
var ErrBusy = errors.New("a turn is running in this session")

// ErrClosed is a turn asked of a closed session.
var ErrClosed = errors.New("the session is closed")

// Session is one conversation: its windows, agent, transcript, approvals
// and events.
type Session struct {
	f            *Factory
	opt          Options
	money        moneyState // what was said about prices (money.go)
	workdir      string
	model        string
	say          func(string)
	spend        *spending // what it and its agents spent (limits.go)
	client       agent.Client
	wm           *windows.Manager
	agent        *agent.Agent
	tel          *telemetry // OTLP spans and sums; nil: none
	pool         *mcp.Pool
	lsp          *lsp.Pool // language servers for diagnostics (diagnostics.go)
	log          *transcript.File
	instructions []prompt.Instruction
	resumed      *Past

	// run is held by the running turn, and by readers of the windows
	// while none runs: a window is only read where no action changes it.
	run sync.Mutex

	mu       sync.Mutex
	images   []imagefile.Image // for the next question (images.go)
	id       string
	parent   string
	fromTurn int
	state    State
	running  bool
	closed   bool
	cancel   context.CancelFunc
	done     chan struct{} // closed when the running turn ends
	turnLog  turnLog       // the turns, as the session's events tell them (turns.go)
	turnN    int           // the number of the last turn begun
	usage    agent.Usage
	steps    int
	call     *callInfo // the call running now, for approval and output events
	held     []Notice  // diagnostics said during the call, for after its result (diagnostics.go)
	pending  map[string]chan windows.Decision
	reqSeq   int
	denials  []Denial // the running turn's refused actions, for its result
	steers   []string // messages for the running turn the model has not seen yet (steer.go)
	queued   []string // messages the last turn ended without seeing: the next turn's question
	unread   []string // messages the last turn dropped unseen (cancelled or failed)
	attached bool     // the turns are started in the session's terminal

	// The turn goroutine's own: the reply's text as it streams.
	streamed  bool // text of the current reply went out as it streamed
	filter    protocol.StreamFilter
	text      *secrets.RedactStream // the reply's words, secrets held back across pieces
	reasoning *secrets.RedactStream

	pub       sync.Mutex // one event published at a time, in order
	heldWords Numbered   // the model's words not written yet, joined (under pub; eventlog.go)
	inbox     *inbox     // the inline front end's queue (Options.Events), or nil
	events    eventLog
	live      liveStreams // running commands' output (live.go)
	subs      map[*subscriber]bool
	views     map[string]windowView // what window events said last

	stopTicker chan struct{}

	mode          *windows.ModeSwitch // the permission mode (mode.go)
	toldMode      windows.PermMode    // the mode the model was last told of
	readOnlyTurn  string              // "/review" while a read-only command's turn runs in plan mode (review.go)
	afterReadOnly windows.PermMode    // the person's mode, back after that turn
	initTurn      bool                // the person's /init runs: writing AGENTS.md is theirs (initturn.go)
	planReady     bool                // the last turn ended in plan mode
	planAccepted  bool                // the next question carries out a plan
	project       *settings.Project   // the workspace's settings, read once (Factory.Project)
	envAllow      wsenv.List          // the person's workspace_env (Factory.envAllow)
	policy        settings.Policy     // the settings' permissions and hooks (rules.go)
	rules         *rules.Set
	trusted       bool          // the project's hooks and MCP servers may run (trust.go)
	code          ProjectCode   // what they run, as trusted: checked again before each runs
	startNotices  []Notice      // said at the first turn as notice events (hooks.go), under mu
	folderTrusted bool          // the person trusted the folder itself (--trust, or a yes when asked)
	lspPlan       bool          // this session counts in its language servers' plan mode (diagnostics.go)
	hooks         *hooks.Runner // nil: no hooks (hooks.go)
	startContext  string        // what SessionStart hooks said, for the first question
	childUsage    []Usage       // agents' usage not yet in a turn's result (child.go), under mu
	childAsking   chan struct{} // held while an agent's question is asked (child.go), made under mu
}

type callInfo struct {
	id, windowID, actionID string
	params                 any
	title                  string // as a person reads it
}

// ID is the session's id: its transcript's name ("" when none is written).
func (s *Session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// Model is the model the session's next requests go to.
func (s *Session) Model() string { return s.currentModel() }

// Instructions are the AGENTS.md files the system prompt holds.
func (s *Session) Instructions() []prompt.Instruction { return s.instructions }

// Resumed is the stored session this one continues, or nil.
func (s *Session) Resumed() *Past { return s.resumed }

// State is where the loop stands now.
func (s *Session) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Start answers one question in the background and returns its turn
// number; events tell how it goes.
func (s *Session) Start(question string) (int, error) {
	p, err := s.expand(question)
	if err != nil {
		return 0, err
	}
	ctx, n, err := s.begin(context.Background(), question)
	if err != nil {
		return 0, err
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				s.publish(Notice{Kind: "error", Text: "internal error in the turn"})
			}
		}()
		s.turn(ctx, n, p)
		// Messages that came after the turn's last request start the next.
		for q := s.Queued(); q != ""; q = s.Queued() {
			p, err := s.expand(q)
			if err != nil {
				s.publish(Notice{Kind: "error", Text: err.Error()})
				continue
			}
			ctx, n, err := s.begin(context.Background(), q)
			if errors.Is(err, ErrBusy) {
				s.Send(q) // another turn began meanwhile: the messages join it
				return
			}
			if err != nil {
				return
			}
			s.turn(ctx, n, p)
		}
	}()
	return n, nil
}

// begin marks a turn as running and returns its context and number.
func (s *Session) begin(ctx context.Context, question string) (context.Context, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, err := s.claimLocked(ctx)
	if err != nil {
		return nil, 0, err
	}
	s.turnN++
	return ctx, s.turnN, nil
}

// claim marks the session as running an operation that excludes turns
// (a turn, a compaction): Cancel ends it, endTurn releases it.
func (s *Session) claim(ctx context.Context) (context.Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.claimLocked(ctx)
}

func (s *Session) claimLocked(ctx context.Context) (context.Context, error) {
	switch {
	case s.closed:
		return nil, ErrClosed
	case s.running:
		return nil, ErrBusy
	}
	s.running = true
	s.denials = []Denial{}
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	return ctx, nil
}

// Ask answers one question, blocking: the one turn entry point of the
// front ends that wait for the turn (the REPL, pipe, headless, ACP). The
// Result says how the request ended: the turn's result event, or, when no
// turn began, a failed result whose Err is also returned (ErrBusy,
// ErrClosed, a command that cannot run).
func (s *Session) Ask(ctx context.Context, question string, opts ...AskOption) (Result, error) {
	var o askOptions
	for _, f := range opts {
		f(&o)
	}
	p, err := s.expand(question)
	if err != nil {
		return s.unbegun(err), err
	}
	if o.prepare != nil {
		p.Text = o.prepare(p.Text)
	}
	ctx, n, err := s.begin(ctx, p.Typed)
	if err != nil {
		return s.unbegun(err), err
	}
	var r Result
	s.turnResult(ctx, n, p, &r)
	s.flushEvents() // the front end has shown the turn when it returns
	return r, nil
}

// AskOption changes one Ask.
type AskOption func(*askOptions)

type askOptions struct {
	prepare func(text string) string
}

// Prepare gives the front end the text the model will read, the question
// expanded, to add its own notes to (the REPL's: files /undo put back,
// windows of mentioned files); what the person typed stays the question.
func Prepare(f func(text string) string) AskOption {
	return func(o *askOptions) { o.prepare = f }
}

// unbegun is how an Ask no turn began for ended.
func (s *Session) unbegun(err error) Result {
	return Result{Outcome: Failed, Err: err, Error: err.Error(), SessionID: s.ID()}
}

// turn runs turn n to its end.
func (s *Session) turn(ctx context.Context, n int, p Prompt) (string, error) {
	return s.turnResult(ctx, n, p, nil)
}

// turnResult runs turn n to its end; out, when not nil, gets its result.
func (s *Session) turnResult(ctx context.Context, n int, p Prompt, out *Result) (string, error) {
	question := p.Typed
	s.run.Lock()
	start := time.Now()
	err := s.checkTurns(n)
	if err == nil {
		err = s.checkBudget()
	}
	if err != nil {
		defer s.endTurn()
		r := s.refused(ctx, n, err)
		if out != nil {
			*out = r
		}
		return "", err
	}
	defer s.endTurn()
	// The journal's turn ends before the result is published, so a client
	// that asks for the session's changes on the result sees this turn's.
	endJournal := sync.OnceFunc(s.journalTurn(n))
	defer endJournal()
	q := s.f.cfg.Agent.Redact(question)
	// Its event is where the turn begins in the transcript (forks and
	// rewinds cut there); the person's words follow once it is known what
	// the model gets (logQuestion).
	s.publish(Turn{Turn: n, Question: q})
	s.publishStartNotices()
	s.setState(StateAwaitingModel)
	before := s.agent.Stats()
	answer := ""
	restoreMode := s.readOnlyMode(p)
	defer s.initMode(p)()
	if text, herr := s.withHookContext(ctx, p.Text); herr != nil {
		s.logQuestion(q, "")
		err = herr
	} else {
		p.Text = s.withAnswerNote(s.withModeNote(text))
		s.logQuestion(q, p.Text)
		answer, err = s.runPrompt(ctx, p)
	}
	if ctx.Err() != nil || errors.Is(err, agent.ErrLimit) {
		s.stopChildren() // an interrupted turn stops its agents, as does one out of budget
	}
	s.endPlanTurn(answer, err)
	restoreMode()
	after := s.agent.Stats()
	answer = s.f.cfg.Agent.Redact(answer)
	s.snapshotWindows(true)
	endJournal()
	result := s.result(ctx, answer, err, after, before, time.Since(start))
	result.Unread = s.unreadOnFailure(err)
	if out != nil {
		*out = result
	}
	s.heldNotices() // a call cut short has no result to follow
	s.publish(result)
	s.setState(StateIdle)
	return answer, err
}

// endTurn marks the running turn as ended and lets the next begin.
func (s *Session) endTurn() {
	s.mu.Lock()
	s.running, s.call = false, nil
	s.queued = append(s.queued, s.steers...)
	s.steers = nil
	s.cancel()
	close(s.done)
	s.mu.Unlock()
	s.run.Unlock()
}

// Cancel ends the running turn as Ctrl-C does: the model request is
// aborted, the running command killed, a waiting question denied.
func (s *Session) Cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// Running reports whether a turn runs.
func (s *Session) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// Wait blocks until the running turn, if any, has ended.
func (s *Session) Wait() {
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Close cancels the running turn and ends the session's commands and MCP
// servers; the transcript stays.
func (s *Session) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	if s.cancel != nil {
		s.cancel()
	}
	if s.stopTicker != nil {
		close(s.stopTicker)
	}
	s.mu.Unlock()
	s.Wait()
	s.sessionEnd()
	s.run.Lock()
	s.wm.CloseAll()
	s.run.Unlock()
	if s.pool != nil {
		s.pool.Close()
	}
	s.closeDiagnostics()
	s.pub.Lock()
	s.flushWords()
	s.pub.Unlock()
	s.log.Close()
	if s.inbox != nil {
		s.inbox.close()
	}
	s.mu.Lock()
	for sub := range s.subs {
		s.dropLocked(sub)
	}
	s.mu.Unlock()
}

// Reset forgets the conversation and closes every window but the launcher
// (the REPL's /reset).
func (s *Session) Reset() {
	s.run.Lock()
	defer s.run.Unlock()
	s.agent.Reset()
	s.mu.Lock()
	s.turnLog, s.turnN, s.queued = turnLog{}, 0, nil
	s.mu.Unlock()
	s.snapshotWindows(true)
}

func (s *Session) setState(st State) {
	s.mu.Lock()
	if s.state == st {
		s.mu.Unlock()
		return
	}
	s.state = st
	s.mu.Unlock()
	s.publish(StateEvent{State: st})
}
