package ui

import (
	"fmt"

	"github.com/aci-dev/aci/session"
)

// usageMoney is /usage's lines on money: the session's cost and what the
// prompt cache saved, or why the cost is unknown and how to set a price.
func (r *REPL) usageMoney(c session.Cost) []string {
	model := r.sess.Model()
	if !c.Known() {
		return []string{
			fmt.Sprintf("  cost               unknown (%d requests without a price%s)", c.Unpriced, knownPart(c)),
			"  " + sanitize(session.PriceHint(model)),
		}
	}
	line := "  cost               " + session.FormatUSD(c.USD) + " this session"
	if c.SavedUSD > 0 {
		line += ", the prompt cache saved " + session.FormatUSD(c.SavedUSD)
	}
	return []string{line}
}

func knownPart(c session.Cost) string {
	if c.USD == 0 {
		return ""
	}
	return "; the others " + session.FormatUSD(c.USD)
}
