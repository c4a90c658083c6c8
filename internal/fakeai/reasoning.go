package fakeai

import (
	"context"
	"maps"
	"net/http"
)

// streamReasoning sends rep.Reasoning as reasoning_content deltas before the
// content, the way llama.cpp, vLLM and LM Studio stream a reasoning model;
// false if the client went away.
func (s *Server) streamReasoning(ctx context.Context, w http.ResponseWriter, req Request, rep Reply, base map[string]any) bool {
	for i, p := range split(rep.Reasoning, chunkRunes) {
		if i > 0 && !s.sleep(ctx, rep.ChunkDelay) {
			return false
		}
		delta := map[string]any{"reasoning_content": p}
		if i == 0 {
			delta["role"] = "assistant"
		}
		chunk := maps.Clone(base)
		chunk["choices"] = []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": nil}}
		if req.IncludeUsage() {
			chunk["usage"] = nil
		}
		if !s.sendChunk(w, req, chunk) {
			return false
		}
	}
	return true
}

// message is a non-streamed reply's message, with reasoning_content when
// the reply has reasoning.
func message(rep Reply) map[string]any {
	m := map[string]any{"role": "assistant", "content": rep.Content, "refusal": nil}
	if rep.Reasoning != "" {
		m["reasoning_content"] = rep.Reasoning
	}
	if len(rep.Citations) > 0 {
		m["annotations"] = annotations(rep.Content, rep.Citations)
	}
	return m
}
