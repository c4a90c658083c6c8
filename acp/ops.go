package acp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aci-dev/aci/session"
)

// The session's operations an editor reaches as available commands
// (session.Ops, those whose ACP form is "/name"): /compact, /model,
// /effort and /rewind. The editor sends "/name args" as prompt text, as
// it does a prompt command; aci runs the operation instead of a turn and
// answers with a message saying what it did.

// opCommands are the operations offered as available commands.
func opCommands() []availableCommand {
	var out []availableCommand
	for _, o := range session.OpsOf(isCommandOp) {
		ac := availableCommand{Name: o.Name, Description: o.Help}
		if o.Args != "" {
			ac.Input = &availableCommandInput{Hint: o.Args}
		}
		out = append(out, ac)
	}
	return out
}

func isCommandOp(o session.Op) bool { return strings.HasPrefix(o.ACP, "/") }

// opOf is the operation a prompt's text names ("/compact keep the tests"),
// and the rest of the line.
func opOf(text string) (session.Op, string, bool) {
	name, arg, ok := strings.Cut(strings.TrimSpace(text), " ")
	if !ok {
		name = strings.TrimSpace(text)
	}
	if !strings.HasPrefix(name, "/") {
		return session.Op{}, "", false
	}
	o, found := session.FindOp(name[1:])
	if !found || !isCommandOp(o) {
		return session.Op{}, "", false
	}
	return o, strings.TrimSpace(arg), true
}

// op answers a prompt that named operation o: what it did is the
// message, and the prompt ends (end_turn; cancelled when the editor
// cancelled it). A refusal is the message too ("error: ..."), as the
// REPL says it.
func (a *acpSession) op(ctx context.Context, o session.Op, arg string) (any, error) {
	reply, err := a.runOp(ctx, o, arg)
	a.sess().Flush() // the operation's own events go first
	a.mu.Lock()
	cancelled := a.cancelled
	a.mu.Unlock()
	if cancelled {
		return promptResult{StopReason: stopCancel}, nil
	}
	if err != nil {
		reply = "error: " + err.Error()
	}
	a.up.message(a.up.redact(reply))
	a.sendCommands()
	return promptResult{StopReason: stopEndTurn}, nil
}

// runOp runs operation o with arg and says what it did, in Markdown.
func (a *acpSession) runOp(ctx context.Context, o session.Op, arg string) (string, error) {
	s := a.sess()
	switch o.Name {
	case "compact":
		c, err := s.Compact(ctx, arg)
		if err != nil {
			return "", err
		}
		return c.Line, nil
	case "model":
		return a.model(ctx, arg)
	case "effort":
		return effortOp(s, arg)
	case "rewind":
		return a.rewind(ctx, arg)
	}
	return "", fmt.Errorf("/%s has no editor form", o.Name)
}

// model lists the models (the current one marked) or switches to one.
func (a *acpSession) model(ctx context.Context, name string) (string, error) {
	s := a.sess()
	if name != "" {
		if err := s.SetModel(ctx, name); err != nil {
			return "", err
		}
		return "model: " + s.Model(), nil
	}
	list, err := s.Models(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	line := func(m string) {
		mark := "  "
		if m == list.Current {
			mark = "* "
		}
		b.WriteString("- " + mark + "`" + m + "`\n")
	}
	fmt.Fprintf(&b, "model: `%s`\n\n", list.Current)
	if list.Err != nil {
		fmt.Fprintf(&b, "the server does not list its models: %v\n", list.Err)
	}
	for _, m := range list.Models {
		line(m)
	}
	for _, p := range list.Providers {
		fmt.Fprintf(&b, "\n%s (%s)\n", p.Name, p.BaseURL)
		if p.Err != nil {
			fmt.Fprintf(&b, "%v\n", p.Err)
		}
		for _, m := range p.Models {
			line(m)
		}
	}
	b.WriteString("\n/model NAME switches to NAME")
	return b.String(), nil
}

// effortOp shows the reasoning effort or sets it.
func effortOp(s *session.Session, level string) (string, error) {
	e, err := s.Effort(level)
	if err != nil {
		return "", err
	}
	out := "reasoning effort: " + e.Level
	if e.Level == "" {
		out = "reasoning effort: the model's default"
	}
	if !e.Sent {
		out += " (" + e.Model + " takes none: none is sent to it)"
	}
	if level == "" {
		out += "\n\n/effort " + strings.Join(session.Efforts, "|") + "|default sets it"
	}
	return out, nil
}

// rewind goes back to just before question N: the conversation continues
// without it and what followed, in a new aci session behind the same ACP
// session id. The files are the editor's: their changes went through it
// (fs/write_text_file) and its undo takes them back. Without N it lists
// the questions.
func (a *acpSession) rewind(ctx context.Context, arg string) (string, error) {
	s := a.sess()
	turns := s.Info().Turns
	if len(turns) == 0 {
		return "nothing to rewind: no question yet", nil
	}
	if arg == "" {
		var b strings.Builder
		b.WriteString("/rewind N goes back to just before question N:\n\n")
		for i, t := range turns {
			fmt.Fprintf(&b, "%d. %s\n", i+1, oneLine(t.Question, 100))
		}
		return b.String(), nil
	}
	n, err := strconv.Atoi(arg)
	if err != nil {
		return "", fmt.Errorf("/rewind: the question must be a number from 1 to %d", len(turns))
	}
	res, err := s.Rewind(ctx, n, false, true)
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	a.s = res.Branch
	a.mu.Unlock()
	s.Close()
	out := fmt.Sprintf("back before question %d; the later turns stay in aci session %s. The question was:\n\n> %s\n\nFiles are not put back: undo their changes in the editor.", n, s.ID(), oneLine(res.Question, 2000))
	return out, nil
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
