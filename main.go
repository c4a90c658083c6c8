// Command aci is a terminal coding agent: the model works on the machine
// through live windows (files, shells, web pages) by writing <tool_call>
// batches. See README.md and docs/protocol.md.
package main

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aci-dev/aci/tools/sandbox"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/tools/worktree"
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
	if len(args) > 0 {
		switch args[0] {
		case "ps", "attach", "logs", "worktree": // background sessions, worktrees (bg.go)
			return runBgCommand(args[0], args[1:], stdin, stdout, stderr)
		case "export": // a session as a document (export_cmd.go)
			return runExport(args[1:], stdout, stderr)
		}
	}
	cfg, err := loadConfigAsking(args, stdin, stderr)
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
	if err := sandbox.CheckContainer(cfg.Sandbox, func(n string) { fmt.Fprintln(stderr, "aci:", n) }); err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitUsage
	}
	if cfg.Telemetry, err = startTelemetry(stderr); err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitUsage
	}
	defer cfg.Telemetry.Shutdown()
	workdir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "aci: cannot read the working directory:", err)
		return ui.ExitFailed
	}
	if cfg.Sessions {
		return listSessions(newFactory(cfg, nil), workdir, stdout, stderr)
	}
	if cfg.Bg != "" {
		return runBg(cfg, args, workdir, stdout, stderr)
	}
	if cfg.WorktreeSet {
		if cfg.Serve {
			fmt.Fprintln(stderr, "aci: aci serve does not take --worktree: start it in the worktree's folder")
			return ui.ExitUsage
		}
		wt, err := worktree.New(workdir, cfg.Worktree)
		if err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return exitFor(err)
		}
		if err := os.Chdir(wt.Path); err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitFailed
		}
		fmt.Fprintf(stderr, "aci: working in the worktree %s on branch %s\n", wt.Path, wt.Branch)
		workdir = wt.Path
		// The worktree is the workspace now: its project settings, read once.
		if cfg.Project = settings.ReadProject(sandbox.WorkspaceRoot(workdir)); cfg.Project.Err != nil {
			fmt.Fprintln(stderr, "aci:", cfg.Project.Err)
			return ui.ExitUsage
		}
		defer func() { worktreeEnd(wt, canAsk(stdin, stderr) && !cfg.PromptSet, stdin, stderr) }()
	}
	limitsNote, cleanup := applyLimits(cfg, stderr)
	defer cleanup()
	if cfg.Serve {
		return runServe(cfg, workdir, stdout, stderr)
	}
	return runAsk(cfg, workdir, limitsNote, stdin, stdout, stderr)
}

// loadConfigAsking is loadConfig, offering a person at a terminal with no
// key to keep one for every folder.
func loadConfigAsking(args []string, stdin *os.File, stderr io.Writer) (config, error) {
	cfg, err := loadConfig(args, stderr)
	var noKey *noKeyError
	if errors.As(err, &noKey) && canAsk(stdin, stderr) {
		if err = askKey(stdin, stderr, noKey); err == nil {
			cfg, err = loadConfig(args, stderr)
		}
	}
	return cfg, err
}

// newFactory holds what every session of this process shares.
func newFactory(cfg config, notify func(string)) *session.Factory {
	return session.NewFactory(session.Config{
		Client: session.ClientConfig{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Stream: cfg.Stream,
			FallbackModels: session.SplitModels(os.Getenv("OPENAI_FALLBACK_MODELS")), Notify: notify, FirstByteTimeout: cfg.FirstByteTimeout,
			Effort: cfg.Effort, Prices: cfg.Prices, Providers: cfg.Providers},
		Agent:           session.AgentConfig{BasePrompt: systemPrompt, MaxSteps: cfg.MaxSteps, CompressTokens: cfg.CompressTokens, CacheTTL: cfg.CacheTTL, Redact: cfg.Secrets.Redact},
		OutputLimit:     cfg.OutputLimit,
		ApprovalTimeout: cfg.ApprovalTimeout,
		Secrets:         cfg.Secrets,
		URLSecrets:      cfg.URLSecrets,
		Limits:          session.Limits{MaxTurns: cfg.MaxTurns, MaxBudgetUSD: cfg.MaxBudgetUSD},
		Endpoint:        cfg.Endpoint,
		Telemetry:       cfg.Telemetry,
		Person:          cfg.Person,
		Project:         cfg.Project,
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
