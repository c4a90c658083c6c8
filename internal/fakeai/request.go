package fakeai

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Request is one recorded POST /v1/chat/completions.
type Request struct {
	N        int         // 1-based arrival number
	Body     []byte      // raw body as sent
	Header   http.Header // includes Authorization; never print it in test output
	Model    string
	Stream   bool
	Messages []Message
	Raw      map[string]any // the decoded body; nil if it was not a JSON object
	Invalid  error          // why the body failed the spec (then the fake answered 400)
}

// Message is one chat message with its content flattened to text.
type Message struct {
	Role    string
	Content string
}

// APIKey returns the bearer token of the Authorization header.
func (r Request) APIKey() string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// IncludeUsage reports whether stream_options.include_usage was true.
func (r Request) IncludeUsage() bool {
	so, _ := r.Raw["stream_options"].(map[string]any)
	return so["include_usage"] == true
}

// LastUser returns the content of the last user message ("" if none),
// which is what most scripted Handle funcs branch on.
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Last is the content of the request's last message: what the model is
// asked to answer now (a question, or the results of its calls).
func (r Request) Last() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// Text is the content of all the request's messages, each ended by a
// newline: all the model was sent with it.
func (r Request) Text() string {
	var sb strings.Builder
	for _, m := range r.Messages {
		sb.WriteString(m.Content + "\n")
	}
	return sb.String()
}

// Step is the step of the conversation this request asks for, from 1:
// one more than the assistant messages it carries.
func (r Request) Step() int {
	step := 1
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			step++
		}
	}
	return step
}

// ChildOf reports whether this request is of an agent window's child
// given task: its first message after the system prompt says "Task: task".
func (r Request) ChildOf(task string) bool {
	return len(r.Messages) > 1 && strings.Contains(r.Messages[1].Content, "Task: "+task)
}

func parseRequest(n int, body []byte, h http.Header) Request {
	req := Request{N: n, Body: body, Header: h}
	if json.Unmarshal(body, &req.Raw) != nil {
		return req
	}
	req.Model, _ = req.Raw["model"].(string)
	req.Stream, _ = req.Raw["stream"].(bool)
	msgs, _ := req.Raw["messages"].([]any)
	for _, m := range msgs {
		obj, _ := m.(map[string]any)
		role, _ := obj["role"].(string)
		req.Messages = append(req.Messages, Message{Role: role, Content: flatten(obj["content"])})
	}
	return req
}

// flatten turns wire content (a string, null, or an array of parts) into
// text; text and refusal parts are concatenated, other parts are skipped.
func flatten(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []any:
		var sb strings.Builder
		for _, p := range c {
			part, _ := p.(map[string]any)
			if s, ok := part["text"].(string); ok {
				sb.WriteString(s)
			} else if s, ok := part["refusal"].(string); ok {
				sb.WriteString(s)
			}
		}
		return sb.String()
	}
	return ""
}
