package ui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// termApprover asks the person at the terminal before a dangerous action.
// It runs on the turn's goroutine and takes the keys from the terminal's
// one reader for the question (approve_answer.go): a whole line, ended by
// Enter, answers; no key answers at once.
type termApprover struct {
	yes        bool
	out        *renderer
	in         *input
	cancelTurn func() // Ctrl-C or Ctrl-D at the question also ends the turn
	// acceptEdits switches the session to default mode: e at a file
	// change asked only for ask mode (nil: not offered).
	acceptEdits func()
}

func (a *termApprover) Approve(ctx context.Context, req windows.ApprovalRequest) windows.Decision {
	if a.yes {
		a.out.suspend()
		a.out.note(fmt.Sprintf("approved by --yes: %s (%s)", req.Subject, req.Reason))
		a.out.resumeSpinner()
		return windows.Decision{Allow: true}
	}
	if ctx.Err() != nil {
		return windows.Decision{By: "aci", Message: "the turn was interrupted"}
	}
	a.out.suspend()
	defer a.out.resumeSpinner()
	a.show(req)
	prefix := alwaysPrefix(req)
	scope := "this exact " + map[bool]string{true: "command", false: "action"}[req.Kind == protocol.AskCommand]
	if prefix != "" {
		scope = "every `" + prefix + " …`"
	}
	o := a.out
	// Claude Code offers "allow all edits during this session" at an edit.
	edits := a.acceptEdits != nil && req.Kind == protocol.AskFile && req.Reason == windows.AskModeFileReason
	o.println(a.answerHint(scope, edits))
	prompt := "  " + o.bold.Sprint("allow?") + " › "
	shared := session.SharedFrom(ctx)
	if shared != nil {
		o.println("  " + o.dim.Sprint("also asked on the web page: the first answer counts"))
	}
	for {
		line, err := a.readLine(ctx, prompt)
		if shared != nil && ctx.Err() != nil {
			return a.decidedElsewhere(shared)
		}
		if err != nil {
			a.cancelTurn()
			// The action's result line says the denial, once.
			return windows.Decision{Message: "they interrupted the turn"}
		}
		v, reason := readAnswer(line)
		switch v {
		case verdictYes:
			o.println("  " + o.green.Sprint("✓ allowed"))
			return windows.Decision{Allow: true}
		case verdictAlways:
			o.println("  " + o.green.Sprint("✓ allowed for this session: "+sanitize(scope)))
			return windows.Decision{Allow: true, Always: true, AlwaysPrefix: prefix}
		case verdictNo:
			if reason == "" {
				return windows.Decision{}
			}
			return windows.Decision{Message: "they said: " + reason}
		case verdictEdits:
			if !edits {
				o.println("  " + o.yellow.Sprint("not an answer: ") + sanitize(strings.TrimSpace(line)) +
					o.dim.Sprint(" (e accepts edits, and only at a file change ask mode asks)"))
				continue
			}
			a.acceptEdits()
			o.println("  " + o.green.Sprint("✓ allowed; edits accepted for this session: mode default (/mode ask asks again; /permissions says it)"))
			return windows.Decision{Allow: true}
		case verdictUnsure:
			o.println("  " + o.yellow.Sprint("not an answer: ") + sanitize(strings.TrimSpace(line)) +
				o.dim.Sprint(" (y or yes alone allows; no, then why, denies)"))
		case verdictProject:
			rule, ok := windows.ProjectRule(req, prefix)
			if !ok {
				o.println("  " + o.green.Sprint("✓ allowed for this session: "+sanitize(scope)) + o.dim.Sprint(" (no project rule can say this action)"))
				return windows.Decision{Allow: true, Always: true, AlwaysPrefix: prefix}
			}
			o.println("  " + o.green.Sprint("✓ allowed for this project: "+sanitize(rule)+" (/permissions lists and removes rules)"))
			return windows.Decision{Allow: true, Always: true, AlwaysPrefix: prefix, Project: true}
		}
	}
}

// alwaysPrefix is what "always" may cover beyond the exact command: its
// first two words, when both are plain words the person can see and the
// danger is not in them (then only the exact command is remembered).
func alwaysPrefix(req windows.ApprovalRequest) string {
	if req.Kind != protocol.AskCommand {
		return ""
	}
	words := strings.Fields(req.Subject)
	if len(words) < 3 {
		return ""
	}
	for _, w := range words[:2] {
		if !plainWord().MatchString(w) {
			return ""
		}
	}
	prefix := words[0] + " " + words[1]
	if !strings.HasPrefix(req.Subject, prefix+" ") {
		return ""
	}
	if req.Part == "" || strings.Index(req.Subject, req.Part) < len(prefix) {
		// The danger starts inside the prefix (or is not known): a prefix
		// would allow more of the same danger.
		return ""
	}
	return prefix
}

var plainWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`) })

// show prints what is asked and why, the dangerous part highlighted: in
// red, or without colour marked with carets on the line below.
func (a *termApprover) show(req windows.ApprovalRequest) {
	o := a.out
	subject, part := sanitize(req.Subject), sanitize(req.Part)
	head := o.yellow.Sprint("⚠ ") + o.bold.Sprint("approval needed: ")
	lines := strings.Split(subject, "\n")
	i := -1
	if part != "" && part != subject {
		i = strings.Index(subject, part)
	}
	switch {
	case i < 0:
		o.println(head + lines[0])
	case o.color:
		hl := subject[:i] + o.alert.Sprint(part) + subject[i+len(part):]
		lines = strings.Split(hl, "\n")
		o.println(head + lines[0])
	default:
		o.println(head + lines[0])
		if !strings.Contains(subject[:i+len(part)], "\n") {
			pad := utf8.RuneCountInString("⚠ approval needed: " + subject[:i])
			o.println(strings.Repeat(" ", pad) + strings.Repeat("^", utf8.RuneCountInString(part)))
		}
	}
	for _, l := range lines[1:] {
		o.println("  " + l)
	}
	o.println("  " + o.dim.Sprint("why: "+sanitize(req.Reason)))
	if req.Diff != "" {
		o.mu.Lock()
		o.diffLocked(req.Diff, diffLinesREPL, screenWidth()-6)
		o.mu.Unlock()
	}
}
