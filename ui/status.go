package ui

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/aci-dev/aci/session"
)

// cmdStatus shows what this session runs with: the model and where it is
// served, containment and the limits every command gets (kept off the
// first screen, which they would crowd at every start), the session id,
// and the tokens used.
func (r *REPL) cmdStatus(string) bool {
	model := r.sess.Model()
	host := r.sess.Server() // the current model's: a provider's for its models
	if u, err := url.Parse(host); err == nil && u.Host != "" {
		host = u.Host
	}
	rows := [][2]string{
		{"model", model},
		{"server", host},
	}
	if r.cfg.Sandbox != nil {
		rows = append(rows, [2]string{"sandbox", r.cfg.Sandbox()})
	}
	if r.cfg.Limits != "" {
		rows = append(rows, [2]string{"limits", strings.TrimPrefix(r.cfg.Limits, "each command is limited to ")})
	}
	rows = append(rows, [2]string{"session", r.sess.ID()}, [2]string{"mode", r.modeStatus()})
	s, w := r.sess.Stats()
	usage := fmt.Sprintf("%s, %d prompt tokens (%d cached), %d completion tokens", plural(s.Steps, "model call"), s.PromptTokens, s.CachedTokens, s.CompletionTokens)
	if s.Cost.Known() && s.Cost.USD > 0 {
		usage += ", " + session.FormatUSD(s.Cost.USD)
	}
	rows = append(rows, [2]string{"usage", usage})
	if w.Tokens > 0 {
		rows = append(rows, [2]string{"context", w.Use(s.LastPrompt)})
	}
	for _, row := range rows {
		r.out.println(fmt.Sprintf("  %-9s %s", row[0], sanitize(row[1])))
	}
	return false
}
