// Package hooks runs the person's hook commands around aci's actions, in
// Claude Code's shape (docs/protocol.md section 10), so that existing hook
// scripts work unchanged: one JSON object on stdin, exit 0 to go on, exit
// 2 to block (stderr is the reason), or a JSON decision on stdout. Hooks
// run as the person, outside containment, each with its timeout; what
// they print is bounded and redacted. A hook that fails or times out is a
// notice, never a hang.
package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aci-dev/aci/tools/settings"
)

// DefaultTimeout is a hook's timeout when its settings give none.
const DefaultTimeout = 60 * time.Second

// maxOutput bounds what is kept of a hook's stdout and of its stderr.
const maxOutput = 64 << 10

// Config is what a Runner needs besides the hooks.
type Config struct {
	SessionID      func() string // the session's id, known once its transcript exists
	TranscriptPath func() string
	Cwd            string
	ProjectDir     string              // CLAUDE_PROJECT_DIR for the hooks
	Mode           func() string       // the permission mode, as Claude Code names it
	Redact         func(string) string // removes secrets from what hooks print
	Notice         func(string)        // one line for the person: a hook that failed
	// Verify, when set, is asked before a project hook runs: an error
	// skips it with a notice (a workspace file it runs changed since the
	// folder was trusted).
	Verify func(command string) error
	// ProjectEnv, when set, makes a project hook's environment from aci's
	// (the allow-list of tools/wsenv: no credentials of the person's).
	ProjectEnv func([]string) []string
}

// Runner runs the hooks of one session.
type Runner struct {
	cfg    Config
	groups []group
}

type group struct {
	settings.HookGroup
	re *regexp.Regexp // nil: every tool
}

// New makes a runner for groups (already filtered by trust). It returns
// nil when there are none: a hook-free session pays for nothing.
func New(groups []settings.HookGroup, cfg Config) *Runner {
	if len(groups) == 0 {
		return nil
	}
	if cfg.Redact == nil {
		cfg.Redact = func(s string) string { return s }
	}
	if cfg.Notice == nil {
		cfg.Notice = func(string) {}
	}
	r := &Runner{cfg: cfg}
	for _, g := range groups {
		gr := group{HookGroup: g}
		if g.Matcher != "" && g.Matcher != "*" {
			re, err := regexp.Compile("^(?:" + g.Matcher + ")$")
			if err != nil {
				continue // settings said so already
			}
			gr.re = re
		}
		r.groups = append(r.groups, gr)
	}
	return r
}

// Has reports whether any hook is set for event.
func (r *Runner) Has(event string) bool {
	if r == nil {
		return false
	}
	for _, g := range r.groups {
		if g.Event == event {
			return true
		}
	}
	return false
}

// Outcome is what the hooks of one event decided, together.
type Outcome struct {
	Block bool // exit 2, or a block/deny decision
	// Reason is why it blocked (stderr of exit 2, or the JSON reason): for
	// the model (PreToolUse, PostToolUse, Stop) or the person
	// (UserPromptSubmit).
	Reason string
	// Decision is PreToolUse's hookSpecificOutput.permissionDecision:
	// "allow", "deny", "ask" or "" (deny wins over ask over allow).
	Decision string
	// Context is what is added for the model: stdout of UserPromptSubmit
	// and SessionStart, and additionalContext.
	Context string
	// Stop is "continue": false: the turn ends, with StopReason.
	Stop       bool
	StopReason string
	// byPerson and byProject say whose hooks blocked or stopped: the
	// person's settings, the project's (.claude/settings.json and the like).
	byPerson, byProject bool
}

// Whose names the settings the blocking hooks came from, for a line that
// says who decided: "the person's", "the project's", or both.
func (o Outcome) Whose() string {
	switch {
	case o.byPerson && o.byProject:
		return "the person's and the project's"
	case o.byProject:
		return "the project's"
	}
	return "the person's"
}

// Run runs the hooks of event that match tool ("" for events without a
// tool), all at once, with input (the event's own fields; the common
// ones are added) on their stdin.
func (r *Runner) Run(ctx context.Context, event, tool string, input map[string]any) Outcome {
	if r == nil {
		return Outcome{}
	}
	var cmds []settings.HookCommand
	var sources []string
	var project []bool
	for _, g := range r.groups {
		if g.Event != event || (tool != "" && g.re != nil && !g.re.MatchString(tool)) {
			continue
		}
		for _, h := range g.Hooks {
			if g.Project && r.cfg.Verify != nil {
				if err := r.cfg.Verify(h.Command); err != nil {
					r.cfg.Notice(fmt.Sprintf("%s hook %q (%s) not run: %v", event, short(h.Command), g.Source, err))
					continue
				}
			}
			cmds = append(cmds, h)
			sources = append(sources, g.Source)
			project = append(project, g.Project)
		}
	}
	if len(cmds) == 0 {
		return Outcome{}
	}
	in := map[string]any{"session_id": r.cfg.SessionID(), "transcript_path": r.cfg.TranscriptPath(), "cwd": r.cfg.Cwd,
		"hook_event_name": event}
	if r.cfg.Mode != nil {
		in["permission_mode"] = r.cfg.Mode()
	}
	for k, v := range input {
		in[k] = v
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		r.cfg.Notice(fmt.Sprintf("%s hook: cannot encode its input: %v", event, err))
		return Outcome{}
	}
	results := make([]result, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.runOne(ctx, c, stdin, project[i])
		}()
	}
	wg.Wait()
	var out Outcome
	for i, res := range results {
		blocked, said := out.Block || out.Stop, out.Reason+out.StopReason
		r.merge(&out, event, cmds[i], sources[i], res)
		if (out.Block || out.Stop) && (!blocked || out.Reason+out.StopReason != said) {
			out.byProject = out.byProject || project[i]
			out.byPerson = out.byPerson || !project[i]
		}
	}
	return out
}

// result is one command's end.
type result struct {
	code           int
	stdout, stderr string
	timedOut       bool
	err            error
}

func (r *Runner) runOne(ctx context.Context, h settings.HookCommand, stdin []byte, project bool) result {
	timeout := DefaultTimeout
	if h.Timeout > 0 {
		timeout = time.Duration(h.Timeout) * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell(), "-c", h.Command)
	cmd.Dir = r.cfg.Cwd
	env := os.Environ()
	if project && r.cfg.ProjectEnv != nil {
		env = r.cfg.ProjectEnv(env) // the allow-list first (tools/wsenv)
	}
	cmd.Env = hookEnv(env, project, r.cfg.ProjectDir)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr boundedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Its own process group, ended whole at the timeout; what it left
	// holding the pipes is not waited for long.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.timedOut, res.code = true, -1
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		res.err, res.code = err, -1
	}
	res.stdout, res.stderr = r.cfg.Redact(res.stdout), r.cfg.Redact(res.stderr)
	if stdout.cut || stderr.cut {
		res.stderr += fmt.Sprintf("\n(the hook printed more than %d KiB: cut)", maxOutput>>10)
	}
	return res
}

// shell is what runs a hook's command line: bash where there is one, as
// Claude Code does.
func shell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// boundedBuffer keeps the first maxOutput bytes and drops the rest, so a
// hook printing megabytes neither fills memory nor blocks on its pipe.
type boundedBuffer struct {
	b   bytes.Buffer
	cut bool
}

func (w *boundedBuffer) Write(p []byte) (int, error) {
	if room := maxOutput - w.b.Len(); room > 0 {
		if len(p) > room {
			w.b.Write(p[:room])
			w.cut = true
		} else {
			w.b.Write(p)
		}
	} else if len(p) > 0 {
		w.cut = true
	}
	return len(p), nil
}

func (w *boundedBuffer) String() string { return w.b.String() }

var _ io.Writer = (*boundedBuffer)(nil)

// short is the first line of s, clipped, for a notice.
func short(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
