// Package ui is aci's terminal side: the one-shot pipe mode and the
// interactive REPL. It renders the agent's events and answers its approval
// requests; the agent knows nothing of the screen.
package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// Exit codes, as PROTOCOL.md fixes them.
const (
	ExitOK          = 0
	ExitFailed      = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// Runner answers one question: a session.
type Runner interface {
	Run(ctx context.Context, question string) (string, error)
}

// PipeApprover answers approval requests with no terminal to ask: it denies,
// or with yes approves and logs what it approved.
func PipeApprover(yes bool, stderr io.Writer) windows.Approver {
	return windows.ApproverFunc(func(ctx context.Context, req windows.ApprovalRequest) windows.Decision {
		if yes {
			fmt.Fprintf(stderr, "aci: approved by --yes: %s (%s)\n", req.Subject, req.Reason)
			return windows.Decision{Allow: true}
		}
		fmt.Fprintf(stderr, "aci: denied: %s (%s): no terminal to ask; rerun with --yes to allow it\n", req.Subject, req.Reason)
		return windows.Decision{Message: "denied because aci is running without a terminal (pipe mode), so no one could be asked. The person must run it themselves, or rerun aci with --yes"}
	})
}

// PipeEvents writes progress on w: the model's remarks between actions,
// one short line per tool call naming what it worked on, and under it a
// short diff of a file change or the tail of a command's output. The final
// answer is not among them: it goes to stdout alone.
func PipeEvents(w io.Writer) func(agent.Event) {
	titles := map[string]string{} // window id → title, from the calls
	return func(ev agent.Event) {
		switch ev.Kind {
		case agent.EventCall:
			titles[ev.Call.WindowID] = ev.Title
		case agent.EventReply:
			if p := ev.Parsed; p.HasCalls() && p.Text != "" {
				fmt.Fprintln(w, sanitize(p.Text))
			}
		case agent.EventResult:
			fmt.Fprintln(w, pipeCallLine(ev.Call, ev.Result, ev.Detail, titles[ev.Call.WindowID]))
			if ev.Detail.Diff != "" {
				lines, more := diffLines(ev.Detail.Diff, diffLinesPipe)
				for _, l := range lines {
					fmt.Fprintln(w, "    "+clip(l, 120))
				}
				if more > 0 {
					fmt.Fprintln(w, "    … "+plural(more, "more line"))
				}
			}
			if lines, before := tailLines(ev.Detail.Output, outputLinesPipe); len(lines) > 0 {
				if before > 0 {
					fmt.Fprintln(w, "    … "+plural(before, "earlier line"))
				}
				for _, l := range lines {
					fmt.Fprintln(w, "    │ "+clip(l, 118))
				}
			}
		case agent.EventNotice:
			fmt.Fprintln(w, "aci:", ev.Text)
		case agent.EventCompressed:
			fmt.Fprintln(w, "aci:", compressionLine(ev.Compression))
		}
	}
}

// pipeCallLine is CallLine marking a failed command as failed, and
// naming what the call worked on: the file opened, the command run.
func pipeCallLine(c protocol.Call, r protocol.Result, d windows.Result, title string) string {
	if d.Failed && r.Status == protocol.StatusOK {
		r.Status = "failed"
	}
	line := CallLine(c, r)
	if d.Failed {
		line = "✗" + strings.TrimPrefix(line, "✓")
	}
	what := title
	switch {
	case c.WindowID == "launcher" && c.ActionID == "open":
		what = strings.TrimSpace(stringParam(c, "app") + " " + stringParam(c, "target"))
	case stringParam(c, "command") != "":
		what = "$ " + stringParam(c, "command")
	case stringParam(c, "url") != "":
		what = stringParam(c, "url")
	}
	if what = firstLine(sanitize(what), 80); what != "" {
		line += " · " + what
	}
	return line
}

// CallLine summarizes a finished call in one line: window, action, status
// and the start of the result.
func CallLine(c protocol.Call, r protocol.Result) string {
	mark := map[string]string{
		protocol.StatusOK: "✓", protocol.StatusError: "✗", protocol.StatusDenied: "⊘", protocol.StatusStarted: "…",
	}[r.Status]
	win, act := c.WindowID, c.ActionID
	if win == "" {
		win, act = "(bad call)", ""
	}
	return fmt.Sprintf("%s %s %s %s: %s", mark, win, act, r.Status, firstLine(r.Text, 100))
}

func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// RunPipe answers one question: the answer alone on stdout, errors on
// stderr. It returns the exit code.
func RunPipe(ctx context.Context, a Runner, question string, stdout, stderr io.Writer, describe func(error) string) int {
	answer, err := a.Run(ctx, question)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "aci: interrupted")
			return ExitInterrupted
		}
		if errors.Is(err, agent.ErrStepLimit) {
			fmt.Fprintln(stderr, "aci:", err)
		} else {
			fmt.Fprintln(stderr, "aci:", describe(err))
		}
		return ExitFailed
	}
	fmt.Fprintln(stdout, strings.TrimSpace(answer))
	return ExitOK
}

// compressionLine says what a compression did, honestly when it saved
// little or nothing.
func compressionLine(c *agent.Compression) string {
	if c.After < c.Before {
		return fmt.Sprintf("compressed %d → %d tokens (earlier conversation summarized; windows stay open)", c.Before, c.After)
	}
	return fmt.Sprintf("summarized the earlier conversation (about %d tokens before, %d after: the open windows take most of the room)", c.Before, c.After)
}
