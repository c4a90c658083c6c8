// Command aci is a terminal coding agent: the model works on the machine
// through live windows (files, shells, web pages) by writing <tool_call>
// batches. See README.md and PROTOCOL.md.
package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/secrets"
	"github.com/aci-dev/aci/ui"
)

//go:embed SYSTEM_PROMPT.md
var systemPrompt string

var version = "0.1.0"

// maxStdin caps piped input, as other agents do.
const maxStdin = 10 << 20

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin *os.File, stdout, stderr io.Writer) (code int) {
	defer func() {
		// No stack trace ever reaches the user.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "aci: internal error: %v\n", r)
			code = ui.ExitFailed
		}
	}()
	if len(args) > 0 && args[0] == "acp" {
		return runACP(args[1:], stdin, stdout, stderr)
	}
	cfg, err := loadConfig(args, stderr)
	var noKey *noKeyError
	if errors.As(err, &noKey) && canAsk(stdin, stderr) {
		// A person at a terminal: offer to keep the key for every folder.
		if err = askKey(stdin, stderr, noKey); err == nil {
			cfg, err = loadConfig(args, stderr)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitUsage
	}
	if cfg.Help {
		fmt.Fprint(stdout, cfg.cmd.help)
		return ui.ExitOK
	}
	if cfg.Version {
		fmt.Fprintln(stdout, "aci", version)
		return ui.ExitOK
	}
	applySafety(cfg, stderr) // containment (says once when unavailable) and the secrets kept out of output
	workdir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "aci: cannot read the working directory:", err)
		return ui.ExitFailed
	}
	if cfg.Sessions {
		return listSessions(newFactory(cfg, nil), workdir, stdout, stderr)
	}
	limitsNote, cleanup := applyLimits(workdir, stderr)
	defer cleanup()
	if cfg.Serve {
		return runServe(cfg, workdir, stdout, stderr)
	}
	stdinTTY := isatty.IsTerminal(stdin.Fd())
	interactive := !cfg.PromptSet && stdinTTY
	if cfg.PromptSet && cfg.Prompt == "" && stdinTTY {
		fmt.Fprintln(stderr, `aci: -p needs a question: aci -p "question", or pipe one in: echo "question" | aci -p`)
		return ui.ExitUsage
	}
	if interactive && len(cfg.Images) > 0 {
		fmt.Fprintln(stderr, `aci: -i attaches a picture to a -p question: aci -p "question" -i shot.png; in the REPL write @shot.png in the question`)
		return ui.ExitUsage
	}
	if interactive && cfg.OutputFormat != ui.FormatText {
		fmt.Fprintf(stderr, "aci: --output-format %s needs a question: pass it with -p or on stdin\n", cfg.OutputFormat)
		return ui.ExitUsage
	}
	if interactive {
		// A person watches from the start: say now, not at the first
		// command, when commands cannot be contained.
		sandbox.Probe()
	}
	question := cfg.Prompt
	if !interactive {
		// With a -p question, stdin is optional context; with a bare -p
		// it is the question.
		piped, err := readStdin(stdin, cfg.Prompt != "")
		if err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitUsage
		}
		switch {
		case cfg.Prompt != "" && strings.TrimSpace(piped) != "":
			question += "\n\n<stdin>\n" + piped + "\n</stdin>"
		case cfg.Prompt == "":
			question = piped
		}
		if strings.TrimSpace(question) == "" {
			fmt.Fprintln(stderr, "aci: no question: pass one with -p or on stdin (see aci --help)")
			return ui.ExitUsage
		}
	}

	notices := ui.NewNotices(stderr)
	if cfg.Found != "" && !interactive {
		fmt.Fprintln(stderr, "aci:", cfg.Found) // the REPL's banner names the server
	}
	describe := func(err error) string { return agent.Describe(err, cfg.BaseURL, cfg.Model) }
	factory := newFactory(cfg, notices.Notify)

	// One session type for every front end: what differs is who approves,
	// who keeps the undo journal and who draws.
	opts := session.Options{Workdir: workdir, Resume: cfg.Resume, ResumeID: cfg.ResumeID, Mode: cfg.PermissionMode, Trust: cfg.Trust}
	var repl *ui.REPL
	if interactive {
		var notes []string
		opts.Say = func(s string) { notes = append(notes, s) }
		served := &replServer{cfg: cfg, factory: factory, workdir: workdir}
		defer served.stop()
		repl, err = ui.NewREPL(ui.REPLConfig{
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
		if !opts.Trust {
			opts.Trust = askTrust(repl, workdir, opts.Say)
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

	pipe := ui.NewPipe(stderr)
	opts.Approver, opts.Events = ui.PipeApprover(cfg.Yes, stderr), pipe.Event
	opts.Say = func(s string) { fmt.Fprintln(stderr, "aci:", s) }
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

// newFactory holds what every session of this process shares.
func newFactory(cfg config, notify func(string)) *session.Factory {
	return session.NewFactory(session.Config{
		Client: agent.ClientConfig{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Stream: cfg.Stream,
			FallbackModels: agent.ModelList(os.Getenv("OPENAI_FALLBACK_MODELS")), Notify: notify, FirstByteTimeout: cfg.FirstByteTimeout,
			Effort: cfg.Effort, Prices: cfg.Prices, Providers: cfg.Providers},
		Agent:           agent.Config{BasePrompt: systemPrompt, MaxSteps: cfg.MaxSteps, CompressTokens: cfg.CompressTokens, CacheTTL: cfg.CacheTTL, Redact: secrets.Secrets.Redact},
		OutputLimit:     cfg.OutputLimit,
		ApprovalTimeout: cfg.ApprovalTimeout,
	})
}

// plural is "1 question", "2 questions".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// readStdin reads piped input up to maxStdin. With a -p question, stdin is
// only context: a pipe that stays silent is not waited on for long.
func readStdin(stdin *os.File, optional bool) (string, error) {
	if optional {
		fi, err := stdin.Stat()
		if err != nil || (fi.Mode()&os.ModeNamedPipe == 0 && !fi.Mode().IsRegular()) {
			return "", nil
		}
	}
	type result struct {
		data []byte
		err  error
	}
	started := make(chan struct{})
	done := make(chan result, 1)
	go func() {
		first := make([]byte, 4096)
		n, err := stdin.Read(first)
		close(started)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			done <- result{first[:n], err}
			return
		}
		rest, err := io.ReadAll(io.LimitReader(stdin, maxStdin+1-int64(n)))
		done <- result{append(first[:n], rest...), err}
	}()
	if optional {
		// A silent pipe inherited from a parent must not hang a -p run.
		select {
		case <-started:
		case <-time.After(500 * time.Millisecond):
			return "", nil
		}
	}
	r := <-done
	if r.err != nil {
		return "", fmt.Errorf("read stdin: %w", r.err)
	}
	if len(r.data) > maxStdin {
		return "", errors.New("stdin is over 10 MB: pass a smaller input, or put it in a file and ask aci to open it")
	}
	return string(r.data), nil
}
