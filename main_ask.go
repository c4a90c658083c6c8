package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/mattn/go-isatty"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/ui"
)

// runAsk is aci with a question or none: the REPL when a person is at the
// terminal with no -p, pipe mode (text, json or stream-json) otherwise.
func runAsk(cfg config, workdir, limitsNote string, stdin *os.File, stdout, stderr io.Writer) int {
	stdinTTY := isatty.IsTerminal(stdin.Fd())
	interactive := !cfg.PromptSet && stdinTTY
	if msg := askUsageError(cfg, interactive, stdinTTY); msg != "" {
		fmt.Fprintln(stderr, "aci:", msg)
		return ui.ExitUsage
	}
	if interactive {
		// A person watches from the start: say now, not at the first
		// command, when commands cannot be contained.
		sandbox.Probe()
		return runREPL(cfg, workdir, limitsNote, stdin, stdout, stderr)
	}
	question, err := pipedQuestion(cfg, stdin)
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitUsage
	}
	if msg := pipeSlashError(workdir, question); msg != "" {
		fmt.Fprintln(stderr, "aci:", msg)
		return ui.ExitUsage
	}
	return runPipe(cfg, workdir, question, stdout, stderr)
}

// askUsageError is what is wrong with the way aci was asked, "" if nothing.
func askUsageError(cfg config, interactive, stdinTTY bool) string {
	switch {
	case cfg.PromptSet && cfg.Prompt == "" && stdinTTY:
		return `-p needs a question: aci -p "question", or pipe one in: echo "question" | aci -p`
	case interactive && len(cfg.Images) > 0:
		return `-i attaches a picture to a -p question: aci -p "question" -i shot.png; in the REPL write @shot.png in the question`
	case interactive && cfg.OutputSchema != nil:
		return "--output-schema needs a question: pass it with -p or on stdin"
	case interactive && cfg.OutputFormat != ui.FormatText:
		return fmt.Sprintf("--output-format %s needs a question: pass it with -p or on stdin", cfg.OutputFormat)
	}
	return ""
}

// pipedQuestion is the question of a non-interactive run: with a -p
// question, stdin is optional context; with a bare -p it is the question.
func pipedQuestion(cfg config, stdin *os.File) (string, error) {
	question := cfg.Prompt
	piped, err := readStdin(stdin, cfg.Prompt != "")
	if err != nil {
		return "", err
	}
	switch {
	case cfg.Prompt != "" && strings.TrimSpace(piped) != "":
		question += "\n\n<stdin>\n" + piped + "\n</stdin>"
	case cfg.Prompt == "":
		question = piped
	}
	if strings.TrimSpace(question) == "" {
		return "", usageErr("no question: pass one with -p or on stdin (see aci --help)")
	}
	return question, nil
}

// runREPL is the interactive REPL. One session type serves every front
// end: what differs is who approves, who keeps the undo journal and who
// draws.
func runREPL(cfg config, workdir, limitsNote string, stdin *os.File, stdout, stderr io.Writer) int {
	notices := ui.NewNotices(stderr)
	describe := func(err error) string { return session.DescribeError(err, cfg.BaseURL, cfg.Model) }
	factory := newFactory(cfg, notices.Notify)
	opts := session.Options{Workdir: workdir, Resume: cfg.Resume, ResumeID: cfg.ResumeID, Mode: cfg.PermissionMode, Trust: cfg.Trust}
	var notes []string
	opts.Say = func(s string) { notes = append(notes, s) }
	served := &replServer{cfg: cfg, factory: factory, workdir: workdir}
	defer served.stop()
	person := cfg.Person // read once at start (config_money.go)
	repl, err := ui.NewREPL(ui.REPLConfig{
		DiffTool: person.DiffTool, StatusLine: person.StatusLine,
		Workdir: workdir, CompressTokens: cfg.CompressTokens,
		Yes: cfg.Yes, Describe: describe, Model: cfg.Model, Version: version,
		BaseURL: cfg.BaseURL, Found: cfg.FoundServer, Limits: limitsNote, Sandbox: func() string { return sandboxStatus(workdir, cfg.Sandbox) },
		Stdin: stdin, Stdout: stdout, Stderr: stderr, Notices: notices,
		Serve: served.serve, ServeAtStart: cfg.ServeREPL,
	})
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitFailed
	}
	defer repl.Close()
	opts.Approver, opts.Journal, opts.Events = repl, repl.Journal(), repl.Event
	if !opts.Trust || cfg.Endpoint.URL != "" {
		// --trust covers hooks and servers, never an endpoint: that is asked.
		opts.Trust = askTrust(factory, repl, workdir, opts.Say) || opts.Trust
	}
	s, err := factory.New(context.Background(), opts)
	if err != nil {
		repl.Close()
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitUsage
	}
	defer func() { s.Close() }()
	for _, n := range notes {
		repl.Note(n)
	}
	branch := func(ctx context.Context, from *session.Session, turn int) (*session.Session, error) {
		o := opts
		o.Resume, o.ResumeID, o.Say = false, "", nil
		b, err := factory.Fork(ctx, from.ID(), turn, o)
		if err == nil {
			s = b // closed on the way out instead of the parent
		}
		return b, err
	}
	return repl.Run(s, branch)
}

// runPipe answers one question without a terminal: text on stdout, or
// --output-format json or stream-json.
func runPipe(cfg config, workdir, question string, stdout, stderr io.Writer) (code int) {
	notices := ui.NewNotices(stderr)
	if cfg.Found != "" {
		fmt.Fprintln(stderr, "aci:", cfg.Found) // the REPL's banner names the server
	}
	factory := newFactory(cfg, notices.Notify)
	opts := session.Options{Workdir: workdir, Resume: cfg.Resume, ResumeID: cfg.ResumeID, Mode: cfg.PermissionMode, Trust: cfg.Trust}
	pipe := ui.NewPipe(stderr)
	opts.Approver, opts.Events = ui.PipeApprover(cfg.Yes, stderr), pipe.Event
	opts.Say = func(s string) { fmt.Fprintln(stderr, "aci:", s) }
	if cfg.OutputSchema != nil {
		opts.Answer = cfg.OutputSchema
	}
	var head *ui.Headless // --output-format json or stream-json
	if cfg.OutputFormat != ui.FormatText {
		head = ui.NewHeadless(cfg.OutputFormat, stdout)
		opts.Events = func(ev session.Event) { pipe.Event(ev); head.Event(ev) }
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got atomic.Value // the signal that ended the run
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() {
		if s, ok := <-sigs; ok {
			got.Store(s)
			cancel()
		}
	}()
	imgs, err := session.LoadImages(workdir, cfg.Images) // before anything is sent
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitUsage
	}
	s, err := factory.New(ctx, opts)
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		var refused *session.EndpointError
		if head != nil && errors.As(err, &refused) {
			head.Event(session.Notice{Kind: "endpoint", Text: err.Error()}) // stream-json's reader sees why too
		}
		return ui.ExitUsage
	}
	defer s.Close()
	s.AttachImages(imgs)
	if head != nil {
		head.Init(s.ID(), cfg.Model, workdir)
		code = ui.RunHeadless(ctx, s, question, head, stderr)
	} else {
		code = ui.RunPipe(ctx, s, question, pipe, stdout, stderr)
	}
	// SIGTERM and SIGHUP end aci like any Unix program: 128 + the signal.
	if s, ok := got.Load().(syscall.Signal); ok && s != syscall.SIGINT {
		code = 128 + int(s)
	}
	return code
}
