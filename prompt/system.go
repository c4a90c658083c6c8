// Package prompt assembles what the model reads: the system message (the
// static prompt plus runtime hints, project instructions and the summary of
// earlier conversation) and the windows block rendered for every request.
package prompt

import (
	"fmt"
	"strings"
)

// Hints are the runtime facts appended to the static system prompt. They
// must not change within a session except through a compression, so the
// request prefix stays byte-identical for provider prompt caches.
type Hints struct {
	Workdir      string
	OS           string
	Date         string // YYYY-MM-DD, no time: a clock would break the cache
	Instructions []Instruction
	Summary      string
}

// System builds the system message.
func System(base string, h Hints) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(base))
	b.WriteString("\n\n# Environment\n")
	fmt.Fprintf(&b, "- Working directory: %s\n", h.Workdir)
	fmt.Fprintf(&b, "- OS: %s\n", h.OS)
	fmt.Fprintf(&b, "- Today's date: %s\n", h.Date)
	for _, in := range h.Instructions {
		kind := "Project"
		if in.User {
			kind = "The person's"
		}
		fmt.Fprintf(&b, "\n# %s instructions (%s)\n%s\n", kind, in.Path, strings.TrimSpace(in.Text))
	}
	if s := strings.TrimSpace(h.Summary); s != "" {
		b.WriteString("\n# Summary of the conversation so far\nEarlier messages were compressed into this summary; the windows are still open and live.\n")
		b.WriteString(s)
		b.WriteString("\n")
	}
	return b.String()
}
