package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chzyer/readline"
	"github.com/mattn/go-isatty"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/windows"
)

// REPLConfig is what the interactive session needs from main.
type REPLConfig struct {
	Workdir string
	// CompressTokens is the compression threshold /usage measures against.
	CompressTokens int64
	Yes            bool // approve dangerous actions without asking
	Describe       func(error) string
	Model          string
	// BaseURL is the model server's, for /status; Found names the local
	// server discovery chose ("Ollama 127.0.0.1:11434"), for the banner.
	BaseURL string
	Found   string
	// Sandbox says how commands are contained, for /status; Limits what
	// bounds each command.
	Sandbox func() string
	Limits  string
	Version string
	Stdin   *os.File // a terminal
	Stdout  io.Writer
	Stderr  io.Writer
	// Notices, when set, are the client's notes; the REPL draws them.
	Notices *Notices
	// Serve starts the server in this process (at addr, "" its default)
	// with the session on it and returns the page's address (/serve);
	// nil: /serve is not available. ServeAtStart runs it at the start
	// (--serve).
	Serve        func(addr string, s *session.Session) (string, error)
	ServeAtStart bool
	// DiffTool and StatusLine are the person's own programs, from their
	// settings file only (never a workspace's): /diff tool and the line
	// under the prompt (difftool.go, statusline.go).
	DiffTool   string
	StatusLine *settings.StatusLine
}

// doubleCtrlC is how soon a second Ctrl-C at an empty prompt exits.
const doubleCtrlC = 2 * time.Second

// REPL is one interactive session. It is built before the window manager
// and the agent, because it is their approver, journal and event sink:
// NewREPL, then windows.NewManager and agent.New with it, then Run.
type REPL struct {
	cfg      REPLConfig
	out      *renderer
	in       *input
	sess     *session.Session
	branch   Brancher
	approver *termApprover
	journal  *windows.UndoJournal
	herr     error // why the input history is not saved, if it is not

	mu     sync.Mutex
	cancel context.CancelFunc // the running turn's; nil between turns
	quit   atomic.Int32       // SIGTERM or SIGHUP (its number): leave after the turn
	notes  []string           // shown once Run starts
	// pending are notes for the model (files /undo put back, commands
	// run with !): they go before the next question.
	pending []string
	// typing reads the lines typed during a turn; later holds those the
	// turn did not take (commands, and messages it ended without
	// reading), run before the prompt comes back; own counts the lines
	// typed here that the model has yet to read (repl_steer_turn.go).
	typing *typeahead
	later  []string
	own    map[string]int

	notify *notifier   // ACI_NOTIFY (notify.go)
	status *statusLine // the person's statusLine, nil when none (statusline.go)
}

// Brancher starts a branch of from at turn (the REPL's /fork).
type Brancher func(ctx context.Context, from *session.Session, turn int) (*session.Session, error)

// use makes s the session the REPL drives (served too, if the old one
// was).
func (r *REPL) use(s *session.Session) {
	old := r.sess
	r.sess = s
	r.showMode(s.Mode())
	if old != nil && old.Attached() && r.cfg.Serve != nil {
		if u, err := r.cfg.Serve("", s); err == nil {
			r.out.note("the web page: " + u)
		}
	}
}

// NewREPL takes the terminal. Close gives it back; Run does so too.
func NewREPL(cfg REPLConfig) (*REPL, error) {
	if cfg.Describe == nil {
		cfg.Describe = func(err error) string { return err.Error() }
	}
	outTTY := isTerminal(cfg.Stdout)
	dumb := os.Getenv("TERM") == "dumb"
	out := newRenderer(cfg.Stdout, outTTY && !dumb && os.Getenv("NO_COLOR") == "", outTTY && !dumb)
	out.markdown = outTTY && !dumb
	// With stdout redirected, answers go to it and the editor to stderr.
	term := cfg.Stdout
	if !outTTY {
		term = cfg.Stderr
	}
	var hist *history
	path, herr := historyPath(cfg.Workdir)
	if herr == nil {
		seedHistory(path)
		hist, herr = openHistory(path)
	} else {
		hist = &history{}
	}
	r := &REPL{cfg: cfg, out: out, herr: herr, journal: windows.NewUndoJournal()}
	if sl := cfg.StatusLine; sl != nil && strings.TrimSpace(sl.Command) != "" {
		if sl.Type != "" && sl.Type != "command" {
			r.notes = append(r.notes, fmt.Sprintf("statusLine: type %q is not known (only \"command\"); no status line", sl.Type))
		} else {
			r.status = &statusLine{command: sl.Command, padding: max(sl.Padding, 0)}
		}
	}
	in, err := newInput(cfg.Stdin, term, hist, out.cyan.Sprint("›")+" ", out.dim.Sprint("…")+" ", isTerminal(term) && !dumb, cfg.Workdir)
	if err != nil {
		return nil, fmt.Errorf("cannot read the terminal: %w", err)
	}
	r.in = in
	r.notify = newNotifier(environ, term, termFocus, func(s string) { r.out.interject(s) })
	r.notify.lock = &out.mu
	in.onShiftTab = r.cycleMode
	r.approver = &termApprover{out: out, in: in, cancelTurn: r.cancelTurn,
		acceptEdits: func() { r.sess.SetMode(windows.ModeDefault) }}
	out.spin.draft = r.draft
	return r, nil
}

// Approve asks the person at the terminal; the REPL is the windows'
// Approver.
func (r *REPL) Approve(ctx context.Context, req windows.ApprovalRequest) windows.Decision {
	r.notifyWaiting(req)
	return r.approver.Approve(ctx, req)
}

// Event shows one of the session's events: give it as Options.Events.
func (r *REPL) Event(ev session.Event) {
	switch e := ev.(type) {
	case session.Steer:
		r.steered(e.Text)
		return
	case session.Notice:
		if e.By != "" {
			return // the terminal's own answer, said there already
		}
	case session.ModeEvent:
		r.modeEvent(e)
	case session.AgentStep:
		// While the turn runs; between turns the prompt is the person's
		// (/show AGENT lists the steps).
		if r.sess != nil && r.sess.Running() {
			r.out.agentStep(e)
		}
		return
	}
	r.out.event(ev)
	if res, ok := ev.(session.Result); ok {
		r.notifyTurn(res)
	}
}

// Journal is the record of file changes /undo puts back; give it to the
// windows' Env.
func (r *REPL) Journal() windows.Journal { return r.journal }

// Note queues a line for the top of the session (after the banner).
func (r *REPL) Note(s string) { r.notes = append(r.notes, s) }

// Close gives the terminal back. It is safe to call more than once.
func (r *REPL) Close() { r.in.Close() }

// Run runs the interactive session with a until /exit, Ctrl-D or a double
// Ctrl-C, and returns the exit code. resumed, when set, is the session
// continued: its turns are shown again. The terminal is restored on every
// way out, a panic included.
func (r *REPL) Run(s *session.Session, branch Brancher) int {
	defer r.in.Close()
	defer func() { r.sess.Close() }() // a rewound conversation's session too
	r.use(s)
	r.branch = branch
	resumed := s.Resumed()
	if r.cfg.Notices != nil {
		r.cfg.Notices.redirect(r.out.interject)
		defer r.cfg.Notices.redirect(nil)
	}
	defer r.watchSignals()()
	r.banner()
	for _, n := range r.notes {
		r.out.note(n)
	}
	if resumed != nil {
		r.replay(*resumed)
	}
	if r.herr != nil {
		r.out.note("input history is not saved: " + r.herr.Error())
	}
	if r.cfg.ServeAtStart {
		r.cmdServe("")
	}
	return r.loop()
}

func (r *REPL) banner() {
	o := r.out
	dir := r.cfg.Workdir
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, dir); err == nil && !strings.HasPrefix(rel, "..") {
			dir = filepath.Join("~", rel)
		}
	}
	// Four lines with the prompt: what runs where, how to get help (and
	// the instructions read), a blank line, the prompt. The rest is on
	// /status.
	model := r.cfg.Model
	if r.cfg.Found != "" {
		model += " on " + r.cfg.Found + " (found; /model lists its models)"
	}
	o.println(o.bold.Sprint("aci "+r.cfg.Version) + o.dim.Sprint(" · "+model+" · "+dir))
	if r.cfg.Yes {
		o.println(o.yellow.Sprint("--yes: dangerous commands run without asking"))
	}
	hint := "/help for commands · Ctrl-C cancels · Ctrl-D exits"
	var ins []string
	for _, in := range r.sess.Instructions() {
		ins = append(ins, in.Path)
	}
	if len(ins) > 0 {
		hint = "read " + strings.Join(ins, ", ") + " · " + hint
	}
	o.println(o.dim.Sprint(hint))
	o.println("")
}

func (r *REPL) loop() int {
	var lastCtrlC time.Time
	for {
		r.sess.Flush() // what a command just did is drawn before the prompt
		msg, blank, err := r.next()
		if sig := r.quit.Load(); sig != 0 {
			return 128 + int(sig) // as any Unix program ended by a signal
		}
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			if !blank {
				lastCtrlC = time.Time{}
				continue
			}
			if !lastCtrlC.IsZero() && time.Since(lastCtrlC) < doubleCtrlC {
				return ExitOK
			}
			lastCtrlC = time.Now()
			r.out.note("press Ctrl-C again to exit")
			continue
		case errors.Is(err, io.EOF):
			return ExitOK
		case err != nil:
			r.out.fail("reading the terminal: " + err.Error())
			return ExitFailed
		}
		lastCtrlC = time.Time{}
		msg = strings.TrimSpace(msg)
		if msg == "" {
			continue
		}
		if msg == escEscLine {
			r.cmdRewind("")
			continue
		}
		if err := r.in.remember(msg); err != nil {
			r.out.note("input history is not saved: " + err.Error())
		}
		if cmd, ok := strings.CutPrefix(msg, "!"); ok && strings.TrimSpace(cmd) != "" {
			r.bang(strings.TrimSpace(cmd))
			continue
		}
		if name, arg, ok := parseSlash(msg); ok {
			if r.command(name, arg) {
				return ExitOK
			}
			continue
		}
		r.turn(msg)
		if r.offerPlan() {
			return ExitOK
		}
		if sig := r.quit.Load(); sig != 0 {
			return 128 + int(sig) // as any Unix program ended by a signal
		}
	}
}

// turn runs one agent turn. Ctrl-C (SIGINT: keys are read without the
// terminal's line discipline, signals kept) cancels its context: the model
// request is aborted and running commands are killed; the agent records
// the interruption in the history. Lines typed meanwhile join the turn
// (repl_steer.go); those it ended without reading wait in r.later.
func (r *REPL) turn(msg string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.setCancel(cancel)
	defer r.setCancel(nil)
	defer r.journal.EndTurn()

	r.out.beginTurn()
	r.startTyping("")
	// The session's result event says how the turn ended: the renderer
	// draws it. A turn that could not begin has none: its error is said
	// here. The notes go in front of the expanded question (a prompt
	// command's file).
	prepare := session.Prepare(func(text string) string { return r.prepare(ctx, text) })
	_, err := r.sess.Ask(ctx, msg, prepare)
	draft := r.stopTyping()
	r.out.endTurn()
	if err != nil {
		r.out.fail(err.Error())
	}
	r.afterTurn(draft)
	r.out.println("")
}

func (r *REPL) setCancel(c context.CancelFunc) {
	r.mu.Lock()
	r.cancel = c
	r.mu.Unlock()
}

// cancelTurn ends the running turn, if any.
func (r *REPL) cancelTurn() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil {
		r.cancel()
	}
}

// watchSignals catches SIGINT for the whole session: during a turn it
// cancels the turn; at the prompt the terminal is raw, so only another
// process can send it, and it must not kill aci with the terminal raw.
// SIGTERM and SIGHUP end the session cleanly. The returned func stops.
func (r *REPL) watchSignals() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				if sig, ok := s.(syscall.Signal); ok && s != os.Interrupt {
					r.quit.Store(int32(sig))
					r.in.Close()
				}
				r.cancelTurn()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
