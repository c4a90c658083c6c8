// Package agent runs aci's loop: it asks the model, parses the reply's
// <tool_call> batches, runs them through the window manager, records the
// history, and compresses it when the prompt grows too big. It knows nothing
// of the screen: it emits events and asks for approval through interfaces.
package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

// Usage is what a response cost, as the provider reports it.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	CachedTokens     int64 `json:"cached_tokens,omitempty"`
}

// Reply is one model response.
type Reply struct {
	Content  string
	Usage    Usage
	HasUsage bool // false when the server reported none
}

// Client is the model as the loop sees it. onText receives streamed text as
// it arrives (it may be nil).
type Client interface {
	Complete(ctx context.Context, msgs []Message, onText func(string)) (Reply, error)
}

// ClientConfig configures the OpenAI-compatible client.
type ClientConfig struct {
	BaseURL string
	APIKey  string
	Model   string
	Stream  bool
}

// OpenAIClient talks to any OpenAI-compatible /chat/completions endpoint.
type OpenAIClient struct {
	client openai.Client
	model  string
	stream bool
}

// NewOpenAIClient builds a client. The SDK's own retries are off: the loop
// decides what to retry.
func NewOpenAIClient(cfg ClientConfig) *OpenAIClient {
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithMaxRetries(0),
		option.WithHTTPClient(&http.Client{Transport: newTransport()}),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &OpenAIClient{client: openai.NewClient(opts...), model: cfg.Model, stream: cfg.Stream}
}

func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 0 // a long generation is not a fault; cancellation ends it
	t.TLSHandshakeTimeout = 10 * time.Second
	return t
}

func (c *OpenAIClient) params(msgs []Message) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: c.model}
	for _, m := range msgs {
		switch m.Role {
		case "system":
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case "assistant":
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		default:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		}
	}
	return p
}

// Complete sends one request.
func (c *OpenAIClient) Complete(ctx context.Context, msgs []Message, onText func(string)) (Reply, error) {
	params := c.params(msgs)
	if !c.stream {
		resp, err := c.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return Reply{}, err
		}
		if len(resp.Choices) == 0 {
			return Reply{}, errors.New("the model returned no choices")
		}
		r := Reply{Content: resp.Choices[0].Message.Content}
		if resp.JSON.Usage.Valid() {
			r.HasUsage = true
			r.Usage = Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens, CachedTokens: resp.Usage.PromptTokensDetails.CachedTokens}
		}
		if onText != nil && r.Content != "" {
			onText(r.Content)
		}
		return r, nil
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := c.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var r Reply
	var text []byte
	finished := false
	for stream.Next() {
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() && (chunk.Usage.PromptTokens > 0 || chunk.Usage.CompletionTokens > 0) {
			r.HasUsage = true
			r.Usage = Usage{PromptTokens: chunk.Usage.PromptTokens, CompletionTokens: chunk.Usage.CompletionTokens, CachedTokens: chunk.Usage.PromptTokensDetails.CachedTokens}
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.FinishReason != "" {
				finished = true
			}
			if ch.Delta.Content == "" {
				continue
			}
			text = append(text, ch.Delta.Content...)
			if onText != nil {
				onText(ch.Delta.Content)
			}
		}
	}
	if err := stream.Err(); err != nil {
		return Reply{}, fmt.Errorf("stream: %w", err)
	}
	if !finished {
		// A clean close without a finish_reason is still a cut-off reply.
		return Reply{}, ErrStreamCut
	}
	r.Content = string(text)
	return r, nil
}

// ErrStreamCut reports a stream that ended before the reply was finished.
var ErrStreamCut = errors.New("the response stream was cut off before the reply finished")
