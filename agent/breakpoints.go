package agent

import "strings"

// Explicit prompt-cache breakpoints. OpenAI, DeepSeek, Gemini and most
// servers cache a repeated prefix by themselves; Anthropic's Claude models
// cache only up to a content part marked {"cache_control":{"type":"ephemeral"}},
// at most four marks a request, and OpenRouter and other gateways pass the
// mark on. Unmarked, every Claude request is billed in full, whatever aci
// does to keep its prefix byte-identical.
//
// Where the marks go: the system message (stable for the whole session,
// read on every request even after a rebase rewrote the history), the last
// message (written now, read by the next request), and the message the
// previous request ended with (the message before the last assistant reply),
// whose prefix that request wrote: the next request reads it at a mark
// of its own, without relying on the provider looking back for it. (A
// fourth mark fixed on an older message for a while, to survive rebases,
// saved nothing measurable on the token-economy sessions.)
//
// On such a model every message is sent as one text part, the mark after
// the text: a mark that moves off a message then changes only the bytes
// after its text. With plain strings for unmarked messages, the whole
// message that lost its mark would differ: the requests repeated 77% of the
// previous one byte for byte rather than 87% (TestAnthropicBill). The Claude
// cache compares content, not bytes, but a gateway need not.

// maxBreakpoints is Anthropic's limit of cache_control marks per request.
const maxBreakpoints = 4

// cacheControl is the mark itself.
type cacheControl struct {
	Type string `json:"type"`
}

// textPart is a text content part, with the mark where one goes.
type textPart struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

// NeedsBreakpoints reports whether model caches only at explicit
// breakpoints: Anthropic's Claude models, under their own name or a
// gateway's (anthropic/claude-sonnet-4.5, us.anthropic.claude-…).
func NeedsBreakpoints(model string) bool {
	return strings.Contains(strings.ToLower(model), "claude")
}

// breakpoints returns the indexes of msgs to mark, in order, at most
// maxBreakpoints: the leading system message, the message before the last
// assistant reply, and the last message.
func breakpoints(msgs []Message) []int {
	var at []int
	add := func(i int) {
		if i >= 0 && i < len(msgs) && len(at) < maxBreakpoints && (len(at) == 0 || at[len(at)-1] < i) && msgs[i].Content != "" {
			at = append(at, i)
		}
	}
	if len(msgs) > 0 && msgs[0].Role == "system" {
		add(0)
	}
	prev := -1
	for i := len(msgs) - 1; i > 0; i-- {
		if msgs[i].Role == "assistant" {
			prev = i - 1
			break
		}
	}
	if prev >= 0 {
		add(prev)
	}
	add(len(msgs) - 1)
	return at
}

// wireContent is a message's content on the wire: the plain string, or
// on a model that caches at breakpoints one text part, carrying the mark
// when marked.
func wireContent(m Message, parts, marked bool) any {
	if !parts {
		return m.Content
	}
	p := textPart{Type: "text", Text: m.Content}
	if marked {
		p.CacheControl = ephemeral
	}
	return []textPart{p}
}
