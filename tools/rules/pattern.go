// Package rules holds the permission rules of docs/protocol.md section 10:
// patterns such as bash:npm test, web:docs.python.org and mcp:SERVER.TOOL
// that allow an action without asking or deny it without asking. The
// person's settings and the project rules aci keeps in the person's
// configuration allow and deny; a project's own settings only deny.
package rules

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/aci-dev/aci/protocol"
)

// Rule is one pattern.
type Rule struct {
	Kind    string // protocol.RuleBash, RuleWeb or RuleMCP
	Pattern string // what follows "KIND:"
	// Reason, for a rule saved from a question, is why that question was
	// asked: the rule covers only requests asked for the same reason.
	Reason string `json:",omitempty"`
}

// String is the rule as written: "bash:npm test".
func (r Rule) String() string { return r.Kind + ":" + r.Pattern }

// claudeBash reads Claude Code's Bash(npm test:*) and Bash(npm test).
var claudeBash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Bash\((.*)\)$`) })

// Parse reads a pattern in aci's form (bash:…, web:…, mcp:…) or Claude
// Code's (Bash(npm test:*), WebFetch(domain:host), mcp__server__tool). A
// pattern that could match nothing is an error.
func Parse(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	var r Rule
	switch {
	case claudeBash().MatchString(s):
		p := claudeBash().FindStringSubmatch(s)[1]
		if cut, ok := strings.CutSuffix(p, ":*"); ok {
			p = cut + " *"
		}
		r = Rule{Kind: protocol.RuleBash, Pattern: p}
	case strings.HasPrefix(s, protocol.ToolWebFetch+"(domain:") && strings.HasSuffix(s, ")"):
		r = Rule{Kind: protocol.RuleWeb, Pattern: strings.TrimSuffix(strings.TrimPrefix(s, protocol.ToolWebFetch+"(domain:"), ")")}
	case strings.HasPrefix(s, protocol.ToolMCP):
		server, tool, ok := strings.Cut(strings.TrimPrefix(s, protocol.ToolMCP), "__")
		if !ok || tool == "" {
			tool = "*"
		}
		r = Rule{Kind: protocol.RuleMCP, Pattern: server + "." + tool}
	default:
		kind, pat, ok := strings.Cut(s, ":")
		if !ok {
			return Rule{}, fmt.Errorf("rule %q: write KIND:PATTERN, KIND one of bash, web, mcp (e.g. bash:npm test)", s)
		}
		r = Rule{Kind: strings.ToLower(strings.TrimSpace(kind)), Pattern: strings.TrimSpace(pat)}
	}
	if err := r.check(); err != nil {
		return Rule{}, fmt.Errorf("rule %q: %w", s, err)
	}
	return r, nil
}

// check refuses a pattern that can match nothing.
func (r Rule) check() error {
	p := strings.TrimSuffix(r.Pattern, " *")
	if strings.TrimSpace(p) == "" || p == "*" {
		return errors.New("the pattern is empty: it would match nothing (or, as *, everything)")
	}
	switch r.Kind {
	case protocol.RuleBash:
		if strings.ContainsAny(p, "\n\r") {
			return errors.New("a command pattern is one line")
		}
		if strings.ContainsAny(p, ";&|`$<>") {
			return errors.New("a command pattern names one command: ; & | ` $ < > never match (a rule covers that command, not what is chained to it)")
		}
	case protocol.RuleWeb:
		if strings.ContainsAny(p, "/: ") {
			return fmt.Errorf("a web pattern is a host name (docs.python.org or *.python.org), not %q", p)
		}
		if strings.Contains(strings.TrimPrefix(p, "*."), "*") {
			return errors.New("a web pattern may start with *. and hold no other *")
		}
	case protocol.RuleMCP:
		server, tool, ok := strings.Cut(p, ".")
		if !ok || server == "" || tool == "" || strings.Contains(p, " ") {
			return errors.New("an MCP pattern is SERVER.TOOL (or SERVER.*)")
		}
	default:
		return fmt.Errorf("unknown kind %q (kinds: %s)", r.Kind, strings.Join(protocol.RuleKinds(), ", "))
	}
	return nil
}

// Covers reports whether the rule allows the request: kind and subject as
// the windows ask (ApprovalRequest), reason its why.
func (r Rule) Covers(kind, subject, reason string) bool {
	if r.Reason != "" && r.Reason != reason {
		return false
	}
	if protocol.AskKindOf(kind).Rule != r.Kind {
		return false // the table of kinds says which rules answer which questions
	}
	switch r.Kind {
	case protocol.RuleBash:
		return commandMatch(subject, r.Pattern, false)
	case protocol.RuleWeb:
		return hostMatch(hostOf(kind, subject), r.Pattern)
	case protocol.RuleMCP:
		return toolMatch(subject, r.Pattern)
	}
	return false
}

// Refuses reports whether a deny rule refuses the request: for commands,
// any command of a list or pipeline that the pattern names.
func (r Rule) Refuses(kind, subject string) bool {
	return r.refuses(kind, subject, commandParts(kind, subject))
}

// refuses is Refuses with the command's parts split once for all rules.
func (r Rule) refuses(kind, subject string, parts []string) bool {
	if r.Kind == protocol.RuleBash && kind == protocol.AskCommand {
		for _, part := range parts {
			if commandMatch(part, r.Pattern, true) {
				return true
			}
		}
		return false
	}
	return r.Covers(kind, subject, "")
}

// commandParts are a command line's simple commands (nil for other kinds).
func commandParts(kind, subject string) []string {
	if kind != protocol.AskCommand {
		return nil
	}
	parts := separators().Split(subject, -1)
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// separators split a command line into its simple commands, roughly: a
// deny rule errs on the side of refusing.
var separators = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("&&|\\|\\||[;&|\\n()`{}]|\\$\\(") })

// commandMatch: "npm test" (or "npm test *") covers npm test and npm test
// with plain arguments after it; a * elsewhere stands for plain words.
// What follows may not start another command, substitute or redirect.
// For a deny rule (loose) anything may follow.
func commandMatch(subject, pattern string, loose bool) bool {
	p := strings.TrimSuffix(pattern, " *")
	if !strings.Contains(p, "*") {
		if !strings.HasPrefix(subject, p) {
			return false
		}
		rest := subject[len(p):]
		if rest == "" {
			return true
		}
		if rest[0] != ' ' && rest[0] != '\t' {
			return false
		}
		return loose || !strings.ContainsAny(rest, ";&|`$()<>\n\r\\*?[{~")
	}
	word := "[^;&|`$()<>\\n\\r\\\\]*"
	if loose {
		word = ".*"
	}
	parts := strings.Split(p, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	re, err := regexp.Compile("^" + strings.Join(parts, word) + "(\\s" + word + ")?$")
	return err == nil && re.MatchString(subject)
}

// HostOf is hostOf for the windows, which save web rules.
func HostOf(kind, subject string) string { return hostOf(kind, subject) }

// hostOf finds the host a fetch ("fetch URL" or "fetch URL (IP)") or a
// connection ("connect to HOST:PORT") is for.
func hostOf(kind, subject string) string {
	if kind == protocol.AskNetwork {
		h := strings.TrimPrefix(subject, "connect to ")
		if i := strings.LastIndexByte(h, ':'); i > 0 {
			h = h[:i]
		}
		return strings.Trim(h, "[]")
	}
	u := strings.TrimPrefix(subject, "fetch ")
	if i := strings.IndexByte(u, ' '); i > 0 {
		u = u[:i]
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return parsed.Hostname()
}

func hostMatch(host, pattern string) bool {
	host, pattern = strings.ToLower(host), strings.ToLower(pattern)
	if host == "" {
		return false
	}
	if suffix, ok := strings.CutPrefix(pattern, "*."); ok {
		return strings.HasSuffix(host, "."+suffix)
	}
	return host == pattern
}

// toolMatch: "SERVER.TOOL" covers the subject "SERVER.TOOL {args}";
// "SERVER.*" every tool of SERVER.
func toolMatch(subject, pattern string) bool {
	name, _, _ := strings.Cut(subject, " ")
	if server, ok := strings.CutSuffix(pattern, ".*"); ok {
		return strings.HasPrefix(name, server+".")
	}
	return name == pattern
}
