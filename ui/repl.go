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

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/windows"
)

// REPLConfig is what the interactive session needs from main.
type REPLConfig struct {
	Client      agent.Client
	AgentConfig agent.Config
	Env         windows.Env // Approver is set by RunREPL
	Apps        []func(*windows.Env) windows.App
	Yes         bool // approve dangerous actions without asking
	Describe    func(error) string
	Model       string
	Version     string
	Stdin       *os.File // a terminal
	Stdout      io.Writer
	Stderr      io.Writer
	// Notices, when set, are the client's notes; the REPL draws them.
	Notices *Notices
	// Start, when set, is called with the new agent (to attach or resume a
	// session transcript); the function it returns runs on exit.
	Start func(*agent.Agent) func()
}

// doubleCtrlC is how soon a second Ctrl-C at an empty prompt exits.
const doubleCtrlC = 2 * time.Second

// repl is one interactive session.
type repl struct {
	cfg   REPLConfig
	out   *renderer
	in    *input
	agent *agent.Agent

	mu     sync.Mutex
	cancel context.CancelFunc // the running turn's; nil between turns
	quit   atomic.Int32       // SIGTERM or SIGHUP (its number): leave after the turn
}

// RunREPL runs the interactive session until /exit, Ctrl-D or a double
// Ctrl-C, and returns the exit code. The terminal is restored on every way
// out, a panic included.
func RunREPL(cfg REPLConfig) int {
	if cfg.Describe == nil {
		cfg.Describe = func(err error) string { return err.Error() }
	}
	outTTY := isTerminal(cfg.Stdout)
	dumb := os.Getenv("TERM") == "dumb"
	out := newRenderer(cfg.Stdout, outTTY && !dumb && os.Getenv("NO_COLOR") == "", outTTY && !dumb)
	// With stdout redirected, answers go to it and the editor to stderr.
	term := cfg.Stdout
	if !outTTY {
		term = cfg.Stderr
	}
	var hist *history
	path, herr := historyPath()
	if herr == nil {
		hist, herr = openHistory(path)
	} else {
		hist = &history{}
	}
	in, err := newInput(cfg.Stdin, term, hist, out.cyan.Sprint("›")+" ", out.dim.Sprint("…")+" ", isTerminal(term) && !dumb)
	if err != nil {
		fmt.Fprintln(cfg.Stderr, "aci: cannot read the terminal:", err)
		return ExitFailed
	}
	defer in.Close()

	r := &repl{cfg: cfg, out: out, in: in}
	if cfg.Notices != nil {
		cfg.Notices.redirect(out.interject)
		defer cfg.Notices.redirect(nil)
	}
	env := cfg.Env
	env.Approver = &termApprover{yes: cfg.Yes, out: out, in: in, cancelTurn: r.cancelTurn}
	wm := windows.NewManager(env, cfg.Apps...)
	defer wm.CloseAll()
	r.agent = agent.New(cfg.Client, wm, cfg.AgentConfig, out.event)
	defer r.watchSignals()()

	r.banner()
	if cfg.Start != nil {
		defer cfg.Start(r.agent)()
	}
	if herr != nil {
		out.note("input history is not saved: " + herr.Error())
	}
	return r.loop()
}

func (r *repl) banner() {
	o := r.out
	dir := r.cfg.Env.Workdir
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, dir); err == nil && !strings.HasPrefix(rel, "..") {
			dir = filepath.Join("~", rel)
		}
	}
	o.println(o.bold.Sprint("aci "+r.cfg.Version) + o.dim.Sprint(" · "+r.cfg.Model+" · "+dir))
	if ins := r.cfg.AgentConfig.Hints.Instructions; len(ins) > 0 {
		var paths []string
		for _, in := range ins {
			paths = append(paths, in.Path)
		}
		o.println(o.dim.Sprint("instructions: " + strings.Join(paths, ", ")))
	}
	o.println(o.dim.Sprint("/help for commands · Ctrl-C cancels · Ctrl-D exits"))
	o.println("")
}

func (r *repl) loop() int {
	var lastCtrlC time.Time
	for {
		msg, blank, err := r.in.readMessage()
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
		if err := r.in.remember(msg); err != nil {
			r.out.note("input history is not saved: " + err.Error())
		}
		if name, arg, ok := parseSlash(msg); ok {
			if r.command(name, arg) {
				return ExitOK
			}
			continue
		}
		r.turn(msg)
		if sig := r.quit.Load(); sig != 0 {
			return 128 + int(sig) // as any Unix program ended by a signal
		}
	}
}

// turn runs one agent turn. Ctrl-C (SIGINT, since no line is being read)
// cancels its context: the model request is aborted and running commands
// are killed; the agent records the interruption in the history.
func (r *repl) turn(msg string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.setCancel(cancel)
	defer r.setCancel(nil)
	defer r.in.quiet()()

	before, start := r.agent.Stats(), time.Now()
	r.out.beginTurn()
	_, err := r.agent.Run(ctx, msg)
	r.out.endTurn()
	switch {
	case err == nil:
	case ctx.Err() != nil:
		r.out.println(r.out.yellow.Sprint("⊘ interrupted"))
	case errors.Is(err, agent.ErrStepLimit):
		r.out.fail(err.Error())
	default:
		r.out.fail(r.cfg.Describe(err))
	}
	if after := r.agent.Stats(); after.Steps > before.Steps {
		r.out.summary(after.Steps-before.Steps, after.PromptTokens-before.PromptTokens,
			after.CachedTokens-before.CachedTokens, after.CompletionTokens-before.CompletionTokens, time.Since(start))
	}
	r.out.println("")
}

func (r *repl) setCancel(c context.CancelFunc) {
	r.mu.Lock()
	r.cancel = c
	r.mu.Unlock()
}

// cancelTurn ends the running turn, if any.
func (r *repl) cancelTurn() {
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
func (r *repl) watchSignals() (stop func()) {
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
