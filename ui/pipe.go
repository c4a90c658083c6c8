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
	"sync"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// Exit codes, as docs/protocol.md fixes them.
const (
	ExitOK          = 0
	ExitFailed      = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// Asker answers one question: a session.
type Asker interface {
	Ask(ctx context.Context, question string, opts ...session.AskOption) (session.Result, error)
}

// PipeApprover answers approval requests with no terminal to ask: it denies,
// or with yes approves and logs what it approved.
func PipeApprover(yes bool, stderr io.Writer) windows.Approver {
	return windows.ApproverFunc(func(ctx context.Context, req windows.ApprovalRequest) windows.Decision {
		if yes {
			fmt.Fprintf(stderr, "aci: approved by --yes: %s (%s)\n", req.Subject, req.Reason)
			return windows.Decision{Allow: true}
		}
		d := windows.Decision{By: "aci in pipe mode (no terminal to ask)", Message: "the person must run it themselves, or rerun aci with --yes"}
		if req.Kind == protocol.AskNetwork {
			// A host refused inside a command has no result line of its
			// own to say so: this is its one line.
			fmt.Fprintln(stderr, "aci:", windows.DenialText(req, d))
		}
		return d
	})
}

// Pipe is pipe mode's view of a run: progress on stderr — the model's
// remarks between actions, one short line per action naming what it
// worked on, and under it a short diff of a file change or the tail of a
// command's output — and how the run ended. The final answer is not among
// the progress: it goes to stdout alone.
type Pipe struct {
	w io.Writer

	mu    sync.Mutex
	descs map[string]string // call id → the call as a person reads it
	words strings.Builder   // the reply's words so far: shown if it has calls
}

// NewPipe writes progress on w.
func NewPipe(w io.Writer) *Pipe {
	return &Pipe{w: w, descs: map[string]string{}}
}

// Event takes one of the session's events: give it as Options.Events.
func (p *Pipe) Event(ev session.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.w
	switch e := ev.(type) {
	case session.Text:
		if !e.Reasoning {
			p.words.WriteString(e.Text)
		}
	case session.StateEvent:
		if e.State == session.StateAwaitingModel {
			p.words.Reset() // a reply without actions: the answer, or nudged
		}
	case session.ToolCall:
		if t := strings.TrimSpace(p.words.String()); t != "" {
			fmt.Fprintln(w, sanitize(t))
		}
		p.words.Reset()
		p.descs[e.Call.ID] = e.Described("").Title
	case session.ToolResult:
		d := e.Detail
		desc, ok := p.descs[e.Call.ID]
		if !ok {
			desc = session.ToolCall{Call: e.Call}.Described("").Title // a result with no call seen
		}
		delete(p.descs, e.Call.ID)
		fmt.Fprintln(w, describedLine(desc, e.Result, d))
		if d.Diff != "" {
			lines, more := diffLines(d.Diff, diffLinesPipe)
			for _, l := range lines {
				fmt.Fprintln(w, "    "+clip(l, 120))
			}
			if more > 0 {
				fmt.Fprintln(w, "    … "+plural(more, "more line"))
			}
		}
		if lines, before := tailLines(d.Output, outputLinesPipe); len(lines) > 0 {
			if before > 0 {
				fmt.Fprintln(w, "    … "+plural(before, "earlier line"))
			}
			for _, l := range lines {
				fmt.Fprintln(w, "    │ "+clip(l, 118))
			}
		}
	case session.Notice:
		if !e.Client { // the process prints the client's notes itself
			fmt.Fprintln(w, "aci:", e.Text)
		}
	case session.Result:
		p.words.Reset()
	}
}

// exitCode is the exit code of a run that ended as res did (docs/protocol.md §1).
func exitCode(res session.Result) int {
	switch res.Outcome {
	case session.Answered:
		return ExitOK
	case session.Interrupted:
		return ExitInterrupted
	}
	return ExitFailed
}

// describedLine is a finished call in one line, as a person reads it:
// its mark, what it did as its window described it, how it ended.
func describedLine(desc string, r protocol.Result, d windows.Result) string {
	mark := map[string]string{
		protocol.StatusOK: "✓", protocol.StatusError: "✗", protocol.StatusDenied: "⊘", protocol.StatusStarted: "…",
	}[r.Status]
	status := r.Status
	if d.Failed {
		mark = "✗"
		if status == protocol.StatusOK {
			status = "failed"
		}
	}
	return fmt.Sprintf("%s %s · %s: %s", mark, firstLine(sanitize(desc), 80), status, firstLine(r.Text, 100))
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
// stderr, progress as p draws it. It returns the exit code.
func RunPipe(ctx context.Context, a Asker, question string, p *Pipe, stdout, stderr io.Writer) int {
	res, err := a.Ask(ctx, question)
	if res.Outcome != session.Answered {
		fmt.Fprintln(stderr, "aci:", res.Error)
		if errors.Is(err, session.ErrUsage) { // a command file that cannot run
			return ExitUsage
		}
		return exitCode(res)
	}
	if res.Structured != nil {
		// --output-schema: the checked value alone, fence or none.
		fmt.Fprintln(stdout, string(res.Structured))
		return ExitOK
	}
	fmt.Fprintln(stdout, res.Answer)
	return ExitOK
}
