package windows

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/rules"
)

// ApprovalRequest describes an action that needs a person's yes.
type ApprovalRequest struct {
	Kind     string // "command", "file", "fetch" or "tool"
	WindowID string
	Subject  string // the command, or "write PATH" / "open PATH"
	Reason   string // why it is dangerous
	Part     string // the dangerous part of Subject, when known
	Diff     string // for a write: the change it would make
}

// Decision is the person's answer.
type Decision struct {
	Allow bool
	// Always allows, for the rest of the session, every request with the
	// same Kind whose Subject starts with AlwaysPrefix (the exact subject
	// when AlwaysPrefix is empty).
	Always       bool
	AlwaysPrefix string
	// Project, with Always, keeps the rule for this project in the
	// person's configuration (rules.go); without, it lasts the session.
	Project bool
	Message string // more on a denial, for the model: what the person said, what to do
	// By says who denied it ("" is "the person"): the denial's one line
	// says what, why and who decided.
	By string
}

// Approver asks a person (or a policy) whether a dangerous action may run.
// The REPL implements it; pipe mode denies or, with --yes, approves.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) Decision
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) Decision

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) Decision { return f(ctx, req) }

// sessionApprover remembers "always" answers: an exact subject, or a
// prefix the person was shown.
type sessionApprover struct {
	next     Approver
	mu       sync.Mutex
	always   map[string]bool
	prefixes map[string][]string // kind → allowed subject prefixes
	rules    *rules.Set          // saved rules: deny first, then allow (rules.go)
}

func (s *sessionApprover) Approve(ctx context.Context, req ApprovalRequest) Decision {
	if r, ok := s.rules.Denied(req.Kind, req.Subject); ok {
		return Decision{By: "the rule deny " + r.String(), Message: "the person's permissions refuse it"}
	}
	if _, ok := s.rules.Allowed(req.Kind, req.Subject, reasonKey(req)); ok || hookDecision(ctx) == "allow" {
		return Decision{Allow: true}
	}
	key := req.Kind + "\x00" + req.Subject
	s.mu.Lock()
	ok := s.always[key]
	for _, p := range s.prefixes[req.Kind] {
		ok = ok || hasWordPrefix(req.Subject, p)
	}
	s.mu.Unlock()
	if ok {
		return Decision{Allow: true}
	}
	if s.next == nil {
		return Decision{Message: "no one is there to approve it"}
	}
	d := s.next.Approve(ctx, req)
	if d.Allow && d.Always && s.rules != nil {
		if r, ok := ruleFor(req, d.AlwaysPrefix); ok {
			scope := rules.ScopeSession
			if d.Project {
				scope = rules.ScopeProject
			}
			if s.rules.Add(r, scope) == nil {
				return d
			}
		}
	}
	if d.Allow && d.Always {
		s.mu.Lock()
		if d.AlwaysPrefix != "" && hasWordPrefix(req.Subject, d.AlwaysPrefix) {
			s.prefixes[req.Kind] = append(s.prefixes[req.Kind], d.AlwaysPrefix)
		} else {
			s.always[key] = true
		}
		s.mu.Unlock()
	}
	return d
}

// hasWordPrefix reports whether subject is prefix, or prefix followed by a
// space and plain words: "go test" covers "go test ./..." but neither
// "go testdata-wipe" nor "go test; rm -rf ~" (what follows the prefix may
// not start another command, substitute or redirect).
func hasWordPrefix(subject, prefix string) bool {
	if len(subject) < len(prefix) || subject[:len(prefix)] != prefix {
		return false
	}
	rest := subject[len(prefix):]
	if rest == "" {
		return true
	}
	return rest[0] == ' ' && !strings.ContainsAny(rest, ";&|`$()<>\n\r\\*?[{~")
}

// remembered reports whether the person already answered "always" to
// req this session, without asking.
func (e *Env) remembered(req ApprovalRequest) bool {
	s, ok := e.Approver.(*sessionApprover)
	if !ok {
		return false
	}
	if _, ok := s.rules.Allowed(req.Kind, req.Subject, reasonKey(req)); ok {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.always[req.Kind+"\x00"+req.Subject]
}

// ask puts req to the approver: nil means the action may go on, otherwise
// the denial to return.
func (e *Env) ask(ctx context.Context, req ApprovalRequest) *Result {
	d := e.Approver.Approve(ctx, req)
	if d.Allow {
		return nil
	}
	return &Result{Status: protocol.StatusDenied, Text: DenialText(req, d)}
}

// DenialText is a denial said once, in one line: who decided, what and
// why, and anything more the decision says.
func DenialText(req ApprovalRequest, d Decision) string {
	by := d.By
	if by == "" {
		by = "the person"
	}
	// The guard's reason often starts with the command it is about: the
	// line names it once.
	why := strings.TrimPrefix(req.Reason, req.Subject+": ")
	text := "denied by " + by + ": " + req.Subject + " (" + why + ")"
	if d.Message != "" {
		text += "; " + d.Message
	}
	return text
}

// Remembered lists the "always" answers this session keeps that no rule
// says (an edit's, a secret file's, a command's exact text where no rule
// could say it), each as its kind and subject, sorted: /permissions lists
// them beside the rules.
func (m *Manager) Remembered() []string {
	s, ok := m.env.Approver.(*sessionApprover)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for key := range s.always {
		kind, subject, _ := strings.Cut(key, "\x00")
		out = append(out, kind+": "+subject)
	}
	for kind, ps := range s.prefixes {
		for _, p := range ps {
			out = append(out, kind+": "+p+" …")
		}
	}
	sort.Strings(out)
	return out
}
