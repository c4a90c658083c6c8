package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aci-dev/aci/protocol"
)

// summaryInstruction asks for the summary that replaces the history. The
// goal and the current question are kept verbatim: a paraphrase drifts.
const summaryInstruction = `Stop here and do not call any action. The conversation is about to be compressed: write a summary that will replace everything above, so that you can continue the work from it alone. The open windows stay open and keep showing live content, so do not copy file contents.

Use these headings:
## Goal
The user's overall goal, and their current request quoted verbatim.
## Done so far
What was done, in order, with the results that matter (tests run and their outcome).
## Files changed
Each path and what changed in it.
## Decisions
Decisions taken and why; constraints the user gave.
## Errors met
Errors and how they were resolved, or that they are not resolved yet.
## Remaining
What remains to be done.
## Next step
The very next action to take.`

// condensedChars caps each message of the transcript sent when the full
// history no longer fits the model's context.
const condensedChars = 2000

// Compression reports what a compression did.
type Compression struct {
	Before, After int64 // prompt tokens before, estimated tokens after
	Summary       string
}

// Compact compresses the history on demand (the REPL's /compact); focus,
// if given, says what the summary should keep in particular.
func (c *Conversation) Compact(ctx context.Context, focus string) (Compression, error) {
	if len(c.history) == 0 {
		return Compression{}, errors.New("nothing to compress yet")
	}
	c.beforeCompress(ctx, "manual", focus)
	return c.compress(ctx, focus, false)
}

// compress asks the model for a summary, then replaces the history with
// nothing and puts the summary in the system message. Windows stay open.
// condensed sends a cut-down transcript instead of the full history, for
// when the history itself no longer fits.
func (c *Conversation) compress(ctx context.Context, focus string, condensed bool) (Compression, error) {
	before := c.lastPrompt
	if before == 0 {
		before = estimateTokens(c.Messages())
	}
	instruction := summaryInstruction
	if c.question != "" {
		instruction += "\n\nThe current request, verbatim:\n" + c.question
	}
	if focus != "" {
		instruction += "\n\nThe user asks the summary to focus on: " + focus
	}
	var msgs []Message
	if condensed {
		msgs = []Message{
			{Role: "system", Content: c.system},
			{Role: "user", Content: "The conversation so far, with long messages cut:\n\n" + asText(c.History(), condensedChars) + "\n\n" + instruction},
		}
	} else {
		msgs = append(c.Messages(), Message{Role: "user", Content: instruction})
	}
	reply, err := c.client.Complete(ctx, msgs, nil)
	if err != nil {
		return Compression{}, fmt.Errorf("compress history: %w", err)
	}
	c.record(reply)
	c.cache.used()
	c.cache.rent = 0 // the history it was paid on is gone
	summary := strings.TrimSpace(protocol.Parse(splitThink(reply).Content, 0).Text)
	if summary == "" {
		return Compression{}, errors.New("compress history: the model returned an empty summary")
	}
	c.setSummary(summary)
	c.history = c.keptThroughCompression()
	c.logged = 0
	// The summary holds every turn so far, the running one too.
	c.folded, c.marks = c.questions, nil
	c.log.write(Record{Type: "summary", Content: summary})
	after := estimateTokens(c.Messages())
	c.lastPrompt = after
	done := &Compression{Before: before, After: after, Summary: summary}
	c.emit(Event{Kind: EventCompressed, Compression: done})
	return *done, nil
}

// compressedNote opens the history after a compression.
const compressedNote = "[The earlier conversation is summarised in the system message. Continue from there.]"

// keptThroughCompression is the history that follows a compression, with
// every open window rendered whole at its end. At the start of a turn it is
// the question; in the middle of one, the last reply and its results stay
// verbatim (with the outputs their renderings carry, which the summary
// cannot hold).
func (c *Conversation) keptThroughCompression() []entry {
	n := len(c.history)
	c.views = newViews(c.wm, c.cfg.Redact)
	var kept []entry
	switch {
	case n >= 1 && c.history[n-1].Role == "user" && c.history[n-1].Text == c.question:
		kept = []entry{{Role: "user", Text: c.question}}
	case n >= 2 && c.history[n-1].Role == "user" && c.history[n-2].Role == "assistant":
		kept = []entry{{Role: "user", Text: compressedNote}, c.history[n-2], c.history[n-1]}
		kept[1].content, kept[2].content = "", ""
		for _, el := range kept[2].Elements {
			c.views.orphans[el.ID] = true
		}
	default:
		kept = []entry{{Role: "user", Text: compressedNote}}
	}
	c.views.rerender(&kept[len(kept)-1])
	return kept
}

// asText renders history as text, each message cut to max characters.
func asText(history []Message, max int) string {
	var b strings.Builder
	for _, m := range history {
		text := m.Content
		if len(text) > max {
			text = text[:max/2] + "\n[… cut …]\n" + text[len(text)-max/2:]
		}
		fmt.Fprintf(&b, "[%s]\n%s\n\n", m.Role, strings.ToValidUTF8(text, ""))
	}
	return b.String()
}

// estimateTokens guesses a request's size for servers that report no usage:
// about four characters a token.
func estimateTokens(msgs []Message) int64 {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + 8
	}
	return int64(n / 4)
}

// isContextOverflow reports whether the API refused a request as too long
// for the model's context (provider.go knows each provider's wording).
func isContextOverflow(err error) bool {
	return Classify(err).Class == ClassContextOverflow
}
