package agent

import (
	"context"
	"fmt"
)

// Structured output. aci's model calls its tools in its words (<tool_call>
// blocks), so a turn's requests cannot all be held to the output schema:
// the schema is said in the question, and the provider's structured output
// (response_format) is asked for when aci asks for the answer alone, after
// one that did not match. A server that refuses the field (an older model,
// a server without it) gets the request again without it, once said; the
// answer is checked either way.

// formatFor is the response_format a request of ctx to model carries, or
// nil.
func (c *OpenAIClient) formatFor(ctx context.Context, model string) *ResponseFormat {
	f := responseFormat(ctx)
	if f == nil {
		return nil
	}
	if c.formats.has(model) {
		return nil
	}
	return f
}

// dropFormat handles a refusal of response_format by model: the request is
// sent again at once without it, and the model is not asked for it again.
func (c *OpenAIClient) dropFormat(ctx context.Context, model string, e APIError) bool {
	if e.Class != ClassBadRequest || e.Provider != "format" || c.formatFor(ctx, model) == nil {
		return false
	}
	c.formats.add(model)
	c.retry.notify(fmt.Sprintf("%s does not take response_format json_schema; asking for the JSON in words", model))
	return true
}
