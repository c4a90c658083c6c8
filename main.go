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
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/guard"
	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/tools"
	"github.com/aci-dev/aci/tools/mcp"
	"github.com/aci-dev/aci/ui"
	"github.com/aci-dev/aci/windows"
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
	cfg, err := loadConfig(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitUsage
	}
	if cfg.Help {
		fmt.Fprint(stdout, usageText)
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
		return listSessions(workdir, stdout, stderr)
	}
	limitsNote, cleanup := applyLimits(workdir, stderr)
	defer cleanup()
	interactive := !cfg.PromptSet && isatty.IsTerminal(stdin.Fd())
	if interactive && cfg.OutputFormat != ui.FormatText {
		fmt.Fprintf(stderr, "aci: --output-format %s needs a question: pass it with -p or on stdin\n", cfg.OutputFormat)
		return ui.ExitUsage
	}
	question := cfg.Prompt
	if !interactive {
		piped, err := readStdin(stdin, cfg.PromptSet)
		if err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitUsage
		}
		switch {
		case cfg.PromptSet && strings.TrimSpace(piped) != "":
			question += "\n\n<stdin>\n" + piped + "\n</stdin>"
		case !cfg.PromptSet:
			question = piped
		}
		if strings.TrimSpace(question) == "" {
			fmt.Fprintln(stderr, "aci: no question: pass one with -p or on stdin (see aci --help)")
			return ui.ExitUsage
		}
	}

	notices := ui.NewNotices(stderr)
	client := agent.NewOpenAIClient(agent.ClientConfig{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Stream: cfg.Stream,
		FallbackModels: agent.ModelList(os.Getenv("OPENAI_FALLBACK_MODELS")), Notify: notices.Notify, FirstByteTimeout: cfg.FirstByteTimeout})
	if cfg.Found != "" {
		fmt.Fprintln(stderr, "aci:", cfg.Found)
	}
	mcpConfig := mcp.LoadConfig(workdir)
	for _, p := range mcpConfig.Problems {
		fmt.Fprintln(stderr, "aci: MCP configuration:", p)
	}
	describe := func(err error) string { return agent.Describe(err, cfg.BaseURL, cfg.Model) }
	hints := prompt.Hints{
		Workdir:      workdir,
		OS:           runtime.GOOS + "/" + runtime.GOARCH,
		Date:         time.Now().Format("2006-01-02"),
		Instructions: prompt.LoadInstructions(workdir),
	}
	acfg := agent.Config{BasePrompt: systemPrompt, Hints: hints, MaxSteps: cfg.MaxSteps, CompressTokens: cfg.CompressTokens, Redact: tools.Secrets.Redact}

	// The window manager and the agent are built once, for both modes; what
	// differs is who approves, who keeps the undo journal and who draws.
	genv := guard.EnvFromOS()
	genv.Secrets = []string{cfg.APIKey}
	env := windows.Env{Workdir: workdir, OutputLimit: cfg.OutputLimit, Guard: guard.New(genv)}
	var emit func(agent.Event)
	var repl *ui.REPL
	if interactive {
		var ins []string
		for _, in := range hints.Instructions {
			ins = append(ins, in.Path)
		}
		repl, err = ui.NewREPL(ui.REPLConfig{
			Client: client, Workdir: workdir, Instructions: ins, CompressTokens: cfg.CompressTokens,
			Yes: cfg.Yes, Describe: describe, Model: cfg.Model, Version: version,
			Stdin: stdin, Stdout: stdout, Stderr: stderr, Notices: notices,
		})
		if err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitFailed
		}
		defer repl.Close()
		repl.Note(limitsNote)
		env.Approver, env.Journal, emit = repl, repl.Journal(), repl.Event
	} else {
		env.Approver, emit = ui.PipeApprover(cfg.Yes, stderr), ui.PipeEvents(stderr)
	}
	var head *ui.Headless // --output-format json or stream-json
	if !interactive && cfg.OutputFormat != ui.FormatText {
		head = ui.NewHeadless(cfg.OutputFormat, stdout)
		head.TakeNotices(notices, stderr)
		progress := emit
		emit = func(ev agent.Event) { progress(ev); head.Event(ev) }
	}
	wm := windows.NewManager(env, apps(workdir, mcpConfig)...)
	defer wm.CloseAll()
	a := agent.New(client, wm, acfg, emit)

	if interactive {
		stop, _, resumed, err := startSession(context.Background(), a, cfg, workdir, repl.Note)
		if err != nil {
			repl.Close()
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitUsage
		}
		defer stop()
		return repl.Run(a, resumed)
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
	stop, id, _, err := startSession(ctx, a, cfg, workdir, func(s string) { fmt.Fprintln(stderr, "aci:", s) })
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitUsage
	}
	defer stop()
	if head != nil {
		head.Init(id, cfg.Model, workdir)
		code = ui.RunHeadless(ctx, a, question, head, stderr, describe)
	} else {
		code = ui.RunPipe(ctx, a, question, stdout, stderr, describe)
	}
	// SIGTERM and SIGHUP end aci like any Unix program: 128 + the signal.
	if s, ok := got.Load().(syscall.Signal); ok && s != syscall.SIGINT {
		code = 128 + int(s)
	}
	return code
}

// startSession gives the agent its transcript: a new one, or with --resume
// the latest session of this working directory (or the one named), replayed
// into the agent. say reports what happened. It returns the function that
// closes the transcript, and the session resumed, if any.
func startSession(ctx context.Context, a *agent.Agent, cfg config, workdir string, say func(string)) (stop func(), id string, resumed *agent.Session, err error) {
	dir, err := agent.SessionsDir()
	if err != nil {
		if cfg.ResumeID != "" {
			return nil, "", nil, err
		}
		say("no session transcript: " + err.Error())
		return func() {}, "", nil, nil
	}
	if cfg.Resume {
		var s agent.Session
		if cfg.ResumeID != "" {
			s, err = agent.FindSession(dir, workdir, cfg.ResumeID)
		} else {
			s, err = agent.LatestSession(dir, workdir)
		}
		if err == nil {
			t, terr := agent.ResumeTranscript(s.Path, cfg.APIKey)
			if terr == nil {
				reopened := a.Resume(ctx, s)
				a.SetTranscript(t)
				msg := fmt.Sprintf("resumed %s (%s", s.ID, plural(s.Questions, "earlier question"))
				if len(reopened) > 0 {
					msg += ", reopened " + strings.Join(reopened, ", ")
				}
				say(msg + ")")
				return func() { t.Close() }, s.ID, &s, nil
			}
			err = terr
		}
		if cfg.ResumeID != "" {
			// The person named a session: starting another would surprise.
			return nil, "", nil, err
		}
		say(err.Error() + "; starting a new session")
	}
	t, err := agent.NewTranscript(dir, workdir, cfg.Model, cfg.APIKey)
	if err != nil {
		say("no session transcript: " + err.Error())
		return func() {}, "", nil, nil
	}
	a.SetTranscript(t)
	return func() { t.Close() }, strings.TrimSuffix(filepath.Base(t.Path), ".jsonl"), nil, nil
}

// plural is "1 question", "2 questions".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// listSessions prints this directory's sessions, newest first: id, date,
// questions and the first one.
func listSessions(workdir string, stdout, stderr io.Writer) int {
	dir, err := agent.SessionsDir()
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitFailed
	}
	list, err := agent.ListSessions(dir, workdir)
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitFailed
	}
	n := 0
	for _, s := range list {
		if s.Questions == 0 {
			continue
		}
		n++
		first := strings.Join(strings.Fields(s.First), " ")
		if r := []rune(first); len(r) > 60 {
			first = string(r[:59]) + "…"
		}
		fmt.Fprintf(stdout, "%-24s  %s  %-12s  %s\n", s.ID, s.Started.Local().Format("2006-01-02 15:04"), plural(s.Questions, "turn"), first)
	}
	if n == 0 {
		fmt.Fprintln(stderr, "aci: no sessions for", workdir)
	} else {
		fmt.Fprintln(stderr, "aci: resume one with aci --resume ID")
	}
	return ui.ExitOK
}

// apps are the window kinds the launcher offers, in its order. MCP
// servers are offered only when some are configured.
func apps(workdir string, mcpConfig mcp.Config) []func(*windows.Env) windows.App {
	list := []func(*windows.Env) windows.App{windows.FileApp, windows.BashApp, windows.WebApp}
	if len(mcpConfig.Servers) > 0 {
		list = append(list, windows.MCPAppWith(mcp.NewPool(mcpConfig, mcp.Options{Workdir: workdir})))
	}
	return list
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
