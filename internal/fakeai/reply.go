package fakeai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strconv"
	"time"
)

// Reply scripts one answer. The zero value plus Content is a normal
// completion, streamed if the request asked for streaming.
type Reply struct {
	Content          string // assistant text
	Reasoning        string // sent apart as reasoning_content, before Content
	FinishReason     string // default "stop"; e.g. "length" for a truncated answer
	Model            string // default: echo the request's model
	PromptTokens     int    // 0 = len(request body)/4
	CompletionTokens int    // 0 = len(Content)/4
	CachedTokens     int    // >0 adds usage.prompt_tokens_details.cached_tokens
	// Citations are the message's url_citation annotations, as a search
	// model (web_search_options) sends them; non-streamed replies only.
	Citations []Citation

	// Faults.
	Status       int               // non-2xx: an OpenAI error body with ErrorMessage/ErrorType/ErrorCode
	ErrorMessage string            // default: a generic message for Status
	ErrorType    string            // default derived from Status, e.g. "invalid_request_error", "server_error"
	ErrorCode    string            // e.g. "context_length_exceeded", "model_not_found"; "" = null
	Header       map[string]string // extra response headers, e.g. Retry-After
	RawBody      string            // sent verbatim (garbage, HTML) with Status, or 200; no schema check
	// CutAfter drops the connection mid-reply: when streaming, after this
	// many content chunks (before usage and [DONE] if it is at least their
	// number; negative = right after the headers); otherwise, after this
	// many bytes of the body.
	CutAfter   int
	Hang       bool          // never answer; returns when the client cancels or the server closes
	Delay      time.Duration // before answering; cut short by client cancellation
	ChunkDelay time.Duration // between stream chunks
}

// chunkRunes is how much text each stream chunk carries, so clients see a
// genuinely incremental stream.
const chunkRunes = 8

func (s *Server) respond(w http.ResponseWriter, r *http.Request, req Request, rep Reply) {
	ctx := r.Context()
	if rep.Hang {
		select {
		case <-ctx.Done():
		case <-s.done:
		}
		return
	}
	if !s.sleep(ctx, rep.Delay) {
		return
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	switch {
	case rep.RawBody != "":
		s.writeBody(w, statusOr(rep.Status, http.StatusOK), []byte(rep.RawBody), rep.CutAfter)
	case rep.Status != 0 && (rep.Status < 200 || rep.Status > 299):
		s.writeError(w, rep)
	case req.Stream:
		s.stream(ctx, w, req, rep)
	default:
		body := s.marshal(completion(req, rep))
		if err := ValidateResponse(body); err != nil {
			s.t.Errorf("fakeai: own reply to request #%d: %v\nbody: %s", req.N, err, body)
		}
		w.Header().Set("Content-Type", "application/json")
		s.writeBody(w, statusOr(rep.Status, http.StatusOK), body, rep.CutAfter)
	}
}

func statusOr(status, def int) int {
	if status == 0 {
		return def
	}
	return status
}

// writeBody sends body with its full Content-Length, so a cut after n
// bytes shows the client a truncated body, as a dropped connection would.
func (s *Server) writeBody(w http.ResponseWriter, status int, body []byte, cutAfter int) {
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if cutAfter != 0 && cutAfter < len(body) {
		_, _ = w.Write(body[:max(cutAfter, 0)])
		cut(w)
		return
	}
	_, _ = w.Write(body)
}

// writeError sends an OpenAI error body as the real API shapes it.
func (s *Server) writeError(w http.ResponseWriter, rep Reply) {
	msg := rep.ErrorMessage
	if msg == "" {
		msg = defaultMessage(rep.Status)
	}
	typ := rep.ErrorType
	if typ == "" {
		typ = errorType(rep.Status)
	}
	var code any
	if rep.ErrorCode != "" {
		code = rep.ErrorCode
	}
	body := s.marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": code,
	}})
	if err := ValidateErrorBody(body); err != nil {
		s.t.Errorf("fakeai: own error reply: %v\nbody: %s", err, body)
	}
	w.Header().Set("Content-Type", "application/json")
	s.writeBody(w, rep.Status, body, rep.CutAfter)
}

func errorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "requests" // what OpenAI sends for rate_limit_exceeded
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

func defaultMessage(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "Incorrect API key provided."
	case http.StatusTooManyRequests:
		return "Rate limit reached. Please try again later."
	}
	return fmt.Sprintf("fakeai: scripted %d %s", status, http.StatusText(status))
}

func (s *Server) stream(ctx context.Context, w http.ResponseWriter, req Request, rep Reply) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(statusOr(rep.Status, http.StatusOK))
	flush(w)
	if rep.CutAfter < 0 {
		cut(w)
		return
	}
	base := header(req, rep, "chat.completion.chunk")
	withUsage := req.IncludeUsage()
	if rep.Reasoning != "" && !s.streamReasoning(ctx, w, req, rep, base) {
		return
	}
	pieces := split(rep.Content, chunkRunes)
	for i, p := range pieces {
		if i > 0 && !s.sleep(ctx, rep.ChunkDelay) {
			return
		}
		delta := map[string]any{"content": p}
		if i == 0 {
			delta["role"] = "assistant"
		}
		var finish any // null until the last content chunk
		if i == len(pieces)-1 {
			finish = finishReason(rep)
		}
		chunk := maps.Clone(base)
		chunk["choices"] = []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}
		if withUsage {
			chunk["usage"] = nil
		}
		if !s.sendChunk(w, req, chunk) {
			return
		}
		if i+1 == rep.CutAfter {
			cut(w)
			return
		}
	}
	if rep.CutAfter > 0 {
		cut(w)
		return
	}
	if withUsage {
		chunk := maps.Clone(base)
		chunk["choices"] = []any{}
		chunk["usage"] = usage(req, rep)
		if !s.sendChunk(w, req, chunk) {
			return
		}
	}
	if _, err := io.WriteString(w, "data: [DONE]\n\n"); err == nil {
		flush(w)
	}
}

// sendChunk validates and writes one SSE event; false if the client is gone.
func (s *Server) sendChunk(w http.ResponseWriter, req Request, chunk map[string]any) bool {
	data := s.marshal(chunk)
	if err := ValidateStreamChunk(data); err != nil {
		s.t.Errorf("fakeai: own stream chunk for request #%d: %v\nchunk: %s", req.N, err, data)
	}
	if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
		return false
	}
	flush(w)
	return true
}

func completion(req Request, rep Reply) map[string]any {
	c := header(req, rep, "chat.completion")
	c["choices"] = []any{map[string]any{
		"index":         0,
		"message":       message(rep),
		"logprobs":      nil,
		"finish_reason": finishReason(rep),
	}}
	c["usage"] = usage(req, rep)
	return c
}

// header holds the fields every reply and chunk of one completion share.
func header(req Request, rep Reply, object string) map[string]any {
	model := rep.Model
	if model == "" {
		model = req.Model
	}
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-fake%d", req.N),
		"object":  object,
		"created": time.Now().Unix(),
		"model":   model,
	}
}

func usage(req Request, rep Reply) map[string]any {
	prompt, completion := rep.PromptTokens, rep.CompletionTokens
	if prompt == 0 {
		prompt = len(req.Body) / 4
	}
	if completion == 0 {
		completion = len(rep.Content) / 4
	}
	u := map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
	if rep.CachedTokens > 0 {
		u["prompt_tokens_details"] = map[string]any{"cached_tokens": rep.CachedTokens}
	}
	return u
}

func finishReason(rep Reply) string {
	if rep.FinishReason != "" {
		return rep.FinishReason
	}
	return "stop"
}

// split cuts s into pieces of n runes (never splitting a UTF-8 sequence);
// an empty s still yields one empty piece, so the role chunk is sent.
func split(s string, n int) []string {
	var out []string
	runes := []rune(s)
	for len(runes) > n {
		out = append(out, string(runes[:n]))
		runes = runes[n:]
	}
	return append(out, string(runes))
}

func (s *Server) marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Errorf("fakeai: marshal: %v", err)
	}
	return b
}

// sleep waits d; false if the request was cancelled or the server closed.
func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// cut drops the connection without finishing the response, so the client
// sees a truncated body or stream rather than a clean end.
func cut(w http.ResponseWriter) {
	flush(w)
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // net/http's sanctioned way to abort a reply
}
