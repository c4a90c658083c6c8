package windows

import (
	"context"
	"strings"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/rules"
)

// refusedByRule is the result of an action a deny rule refuses: no
// question, whatever the mode (yes included).
func refusedByRule(subject string, r rules.Rule) *Result {
	return &Result{Status: protocol.StatusDenied, Text: "denied by the rule deny " + r.String() + ": " + subject +
		" (the person's permissions refuse it; do not try another way to do the same)"}
}

// denied checks the deny rules before any action of kind on subject,
// asked about or not.
func (e *Env) denied(kind, subject string) *Result {
	if r, ok := e.Rules.Denied(kind, subject); ok {
		return refusedByRule(subject, r)
	}
	return nil
}

// reasonKey is a question's reason without what names this very action
// (its dangerous part, the paths a grant would open): a rule saved from
// the question covers later actions asked for the same reason.
func reasonKey(req ApprovalRequest) string {
	r := req.Reason
	if i := strings.Index(r, ": "); i > 0 && (strings.Contains(req.Subject, r[:i]) || r[:i] == req.Part) {
		r = r[i+2:]
	}
	if i := strings.Index(r, " — "); i >= 0 {
		r = r[:i]
	}
	return strings.TrimSpace(r)
}

// ProjectRule is the rule "always for this project" would save for req
// (prefix: the command prefix the person is shown), as written; ok is
// false where no rule can say the action.
func ProjectRule(req ApprovalRequest, prefix string) (string, bool) {
	r, ok := ruleFor(req, prefix)
	return r.String(), ok
}

// ruleFor is the rule an "always" answer to req saves: the command (or
// the prefix the person was shown), the host fetched or connected to, the
// MCP tool. ok is false where no rule can say it (a file, a command
// chained to another): the session then remembers that exact action.
func ruleFor(req ApprovalRequest, prefix string) (rules.Rule, bool) {
	var r rules.Rule
	switch protocol.AskKindOf(req.Kind).Rule { // the table of kinds (protocol/kinds.go)
	case protocol.RuleBash:
		p := req.Subject
		if prefix != "" {
			p = prefix
		}
		if strings.ContainsAny(p, "*?[") {
			return r, false // a * in a rule stands for words: wider than what was asked
		}
		r = rules.Rule{Kind: protocol.RuleBash, Pattern: p}
	case protocol.RuleWeb:
		host := rules.HostOf(req.Kind, req.Subject)
		if host == "" {
			return r, false
		}
		r = rules.Rule{Kind: protocol.RuleWeb, Pattern: host}
	case protocol.RuleMCP:
		name, _, _ := strings.Cut(req.Subject, " ")
		if !strings.Contains(name, ".") || strings.HasPrefix(req.Subject, "start MCP server") {
			return r, false
		}
		r = rules.Rule{Kind: protocol.RuleMCP, Pattern: name}
	default:
		return r, false
	}
	if req.Kind == protocol.AskCommand {
		// The guard's reasons differ by what a command does; a host or a
		// tool is asked about for one reason only.
		r.Reason = reasonKey(req)
	}
	parsed, err := rules.Parse(r.String())
	if err != nil {
		return r, false
	}
	parsed.Reason = r.Reason
	return parsed, parsed.Covers(req.Kind, req.Subject, r.Reason)
}

type hookDecisionKey struct{}

// WithHookDecision carries a PreToolUse hook's permission decision for
// the action run with ctx: "allow" answers its questions yes (deny rules
// and plan mode still refuse), "ask" asks even what would not be asked.
func WithHookDecision(ctx context.Context, decision string) context.Context {
	return context.WithValue(ctx, hookDecisionKey{}, decision)
}

func hookDecision(ctx context.Context) string {
	d, _ := ctx.Value(hookDecisionKey{}).(string)
	return d
}
