package hooks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aci-dev/aci/tools/settings"
)

// reply is the JSON a hook may print on stdout (Claude Code's fields).
type reply struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	Decision           string `json:"decision"` // "block" (or "approve", PreToolUse's old spelling of allow)
	Reason             string `json:"reason"`
	HookSpecificOutput struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// merge adds one command's result to the event's outcome.
func (r *Runner) merge(out *Outcome, event string, h settings.HookCommand, source string, res result) {
	name := fmt.Sprintf("%s hook %q (%s)", event, short(h.Command), source)
	switch {
	case res.timedOut:
		r.cfg.Notice(fmt.Sprintf("%s timed out and was stopped; nothing blocked", name))
		return
	case res.err != nil:
		r.cfg.Notice(fmt.Sprintf("%s could not run: %v; nothing blocked", name, res.err))
		return
	case res.code == 2:
		out.Block = true
		out.Reason = join(out.Reason, strings.TrimSpace(res.stderr))
		if event == "PreToolUse" {
			out.Decision = "deny"
		}
		return
	case res.code != 0:
		r.cfg.Notice(fmt.Sprintf("%s exited %d: %s; nothing blocked", name, res.code, short(res.stderr)))
		return
	}
	text := strings.TrimSpace(res.stdout)
	var rep reply
	if strings.HasPrefix(text, "{") && json.Unmarshal([]byte(text), &rep) == nil {
		r.mergeJSON(out, event, rep)
		return
	}
	// Plain stdout is context for the model where Claude Code adds it.
	if text != "" && (event == "UserPromptSubmit" || event == "SessionStart") {
		out.Context = join(out.Context, text)
	}
}

func (r *Runner) mergeJSON(out *Outcome, event string, rep reply) {
	if rep.Continue != nil && !*rep.Continue {
		out.Stop, out.StopReason = true, join(out.StopReason, rep.StopReason)
	}
	hs := rep.HookSpecificOutput
	out.Context = join(out.Context, strings.TrimSpace(hs.AdditionalContext))
	switch strings.ToLower(rep.Decision) {
	case "block":
		out.Block = true
		out.Reason = join(out.Reason, rep.Reason)
		if event == "PreToolUse" {
			out.Decision = "deny"
		}
	case "approve":
		out.Decision = stronger(out.Decision, "allow")
	}
	if d := strings.ToLower(hs.PermissionDecision); event == "PreToolUse" && (d == "allow" || d == "deny" || d == "ask") {
		out.Decision = stronger(out.Decision, d)
		if d == "deny" {
			out.Block = true
			out.Reason = join(out.Reason, hs.PermissionDecisionReason)
		} else if hs.PermissionDecisionReason != "" && d == "ask" {
			out.Reason = join(out.Reason, hs.PermissionDecisionReason)
		}
	}
}

// stronger: deny over ask over allow.
func stronger(a, b string) string {
	rank := map[string]int{"": 0, "allow": 1, "ask": 2, "deny": 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

func join(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return a + "\n" + b
}
