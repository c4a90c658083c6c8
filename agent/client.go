// Package agent runs aci's loop: it asks the model, parses the reply's
// <tool_call> batches, runs them through the window manager, records the
// history, and compresses it when the prompt grows too big. It knows nothing
// of the screen: it emits events and asks for approval through interfaces.
package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aci-dev/aci/tools/imagefile"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
	// Images go with the text as image content parts (images.go).
	Images []imagefile.Image `json:"images,omitempty"`
}

// Usage is what a response cost, as the provider reports it.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	CachedTokens     int64 `json:"cached_tokens,omitempty"`
	// CacheWriteTokens are prompt tokens written to the cache, where the
	// server says (OpenRouter for Claude models): they cost more.
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	// Cost is what the response cost (prices.go), set by the client.
	Cost Cost `json:"-"`
}

// Reply is one model response.
type Reply struct {
	Content  string
	Usage    Usage
	HasUsage bool // false when the server reported none
	// Reasoning is what the server sent apart from the content
	// (reasoning_content or reasoning) and what <think> blocks held: shown,
	// never stored.
	Reasoning string
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
	// FallbackModels are tried in turn once Model has failed for good with
	// a retryable error or was not found (OPENAI_FALLBACK_MODELS).
	FallbackModels []string
	// Notify receives one line per retry and per fallback, and one when the
	// server is slow to answer (from a timer's goroutine); it may be nil.
	Notify func(string)
	// IdleTimeout aborts an attempt that receives nothing (no headers, no
	// stream data) for this long; 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// FirstByteTimeout aborts an attempt whose first body byte has not come
	// by then: a local server may process a long prompt for minutes before
	// it sends anything. 0 means DefaultFirstByteTimeout(BaseURL).
	FirstByteTimeout time.Duration
	// SlowNotice is how long without a first byte before Notify says the
	// server is still processing; 0 means 10 s.
	SlowNotice time.Duration
	// Effort is the reasoning effort (effort.go); "" for the model's default.
	Effort string
	// Prices are the person's prices (`prices` in settings), which win
	// over OpenRouter's and the built-in table (prices.go).
	Prices map[string]Price
	// Providers are the endpoints a "NAME/MODEL" name picks (providers.go).
	Providers []Provider
}

// DefaultIdleTimeout is how long a request may receive nothing before it is
// aborted and retried.
const DefaultIdleTimeout = 120 * time.Second

// connectTimeout bounds dialing and the TLS handshake: a host that does not
// answer by then is down or unreachable, and waiting only delays the retry.
const connectTimeout = 10 * time.Second

// OpenAIClient talks to any OpenAI-compatible /chat/completions endpoint.
// Complete (retry.go) retries and falls back; attempt sends one request.
type OpenAIClient struct {
	client    openai.Client
	baseURL   string
	apiKey    string // only to redact it from raw bodies shown in errors
	stream    bool
	idle      time.Duration
	firstByte time.Duration
	slow      time.Duration
	retry     retrier
	window    windowCache  // the context window, per model (ctxwindow.go)
	effort    effortState  // reasoning effort (effort.go)
	pricing   pricing      // what replies cost (pricing.go)
	providers *providerSet // more endpoints (providers.go)
	images    imageGate    // whether the model takes pictures (images.go)
	formats   modelSet     // models that refused response_format (format.go)
}

// NewOpenAIClient builds a client. The SDK's own retries are off: Complete
// counts and announces every attempt itself.
func NewOpenAIClient(cfg ClientConfig) *OpenAIClient {
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithMaxRetries(0),
		option.WithHTTPClient(&http.Client{Transport: newTransport()}),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	idle := cfg.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	firstByte := cfg.FirstByteTimeout
	if firstByte <= 0 {
		firstByte = DefaultFirstByteTimeout(cfg.BaseURL)
	}
	slow := cfg.SlowNotice
	if slow <= 0 {
		slow = defaultSlowNotice
	}
	return &OpenAIClient{
		client: newSDKClient(opts), baseURL: cfg.BaseURL, apiKey: cfg.APIKey, stream: cfg.Stream,
		idle: idle, firstByte: firstByte, slow: slow,
		retry: newRetrier(cfg.Model, cfg.FallbackModels, cfg.Notify), effort: effortState{level: cfg.Effort},
		pricing: pricing{overrides: cfg.Prices}, providers: newProviderSet(cfg.Providers),
	}
}

// newSDKClient is openai.NewClient without the services it builds for
// every endpoint of the API (two dozen, each with its own options): aci
// sends chat completions through Client.Post alone, and a one-question run
// paid about 0.3 MB for the rest.
func newSDKClient(opts []option.RequestOption) openai.Client {
	return openai.Client{Options: append(openai.DefaultClientOptions(), opts...)}
}

func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = connectTimeout
	// No ResponseHeaderTimeout: attempt's idle timer covers waiting for
	// headers too, with a duration tests can shorten.
	t.ResponseHeaderTimeout = 0
	return t
}

// chatRequest is the body of a chat completion: the few fields aci sends,
// encoded by encoding/json. The SDK sends it as given (a []byte body) and
// reads the answer; its reflection over every parameter the API has costs
// a one-question run memory it never needs.
type chatRequest struct {
	Model         string         `json:"model"`
	Messages      []chatMessage  `json:"messages"`
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	// ReasoningEffort is sent only where the model takes it (effort.go).
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// ResponseFormat asks for structured output (format.go).
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"` // a string, or content parts (breakpoints.go, images.go)
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// body encodes the request: system and assistant messages as such, every
// other (questions, results, renderings) as a user message.
func (c *OpenAIClient) body(name string, msgs []Message, stream bool, format *ResponseFormat) ([]byte, error) {
	model := c.endpoint(name).model
	req := chatRequest{Model: model, Messages: make([]chatMessage, 0, len(msgs)), Stream: stream}
	if stream {
		req.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	req.ReasoningEffort = c.effortFor(name)
	req.ResponseFormat = format
	var marks []int
	if NeedsBreakpoints(model) {
		marks = breakpoints(msgs)
	}
	for i, m := range msgs {
		role := "user"
		if m.Role == "system" || m.Role == "assistant" {
			role = m.Role
		}
		marked := len(marks) > 0 && marks[0] == i
		if marked {
			marks = marks[1:]
		}
		req.Messages = append(req.Messages, chatMessage{Role: role, Content: messageContent(m, NeedsBreakpoints(model), marked)})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(req); err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	return b.Bytes(), nil
}

// errIdle is the cause attempt's idle timer cancels a request with.
var errIdle = errors.New("idle")

// errFirstByte is the cause attempt's first-byte timer cancels with.
var errFirstByte = errors.New("no first byte")

// attempt sends one request to model. Until the first body byte, a
// first-byte timer runs (prompt processing can be slow), and a notice says
// so after a while; from then on an idle timer, reset whenever bytes
// arrive, aborts it when the server goes silent. A recorder keeps the start
// of the body so a reply that is not JSON can be shown.
func (c *OpenAIClient) attempt(ctx context.Context, model string, msgs []Message, onText func(string)) (Reply, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var first atomic.Bool
	timer := time.AfterFunc(c.firstByte, func() {
		if first.Load() {
			cancel(errIdle)
		} else {
			cancel(errFirstByte)
		}
	})
	defer timer.Stop()
	started := time.Now()
	slow := time.AfterFunc(c.slow, func() {
		if !first.Load() && actx.Err() == nil {
			c.retry.notify(fmt.Sprintf("the server is still processing the prompt (%ds so far; waiting up to %ds for the first byte, ACI_FIRST_BYTE_TIMEOUT)",
				int(time.Since(started).Seconds()), int(c.firstByte.Seconds())))
		}
	})
	defer slow.Stop()
	rec := &recorder{onData: func(body bool) {
		if body || first.Load() {
			// Headers alone do not end the first-byte wait: some servers
			// send them before processing the prompt.
			first.Store(true)
			timer.Reset(c.idle)
		}
	}}
	r, err := c.send(actx, model, msgs, onText, rec)
	if err != nil && ctx.Err() == nil {
		switch cause := context.Cause(actx); {
		case errors.Is(cause, errIdle):
			return Reply{}, &IdleError{After: c.idle}
		case errors.Is(cause, errFirstByte):
			return Reply{}, &IdleError{After: c.firstByte, FirstByte: true}
		}
	}
	return r, c.statusError(rec, err)
}

func (c *OpenAIClient) send(ctx context.Context, model string, msgs []Message, onText func(string), rec *recorder) (Reply, error) {
	ep := c.endpoint(model)
	if ep.err != nil {
		return Reply{}, ep.err
	}
	body, err := c.body(model, msgs, c.stream, c.formatFor(ctx, model))
	if err != nil {
		return Reply{}, err
	}
	mw := option.WithMiddleware(rec.middleware)
	if !c.stream {
		var resp openai.ChatCompletion
		if err := ep.sdk.Post(ctx, "chat/completions", body, &resp, mw); err != nil {
			// The whole 2xx body arrived, yet the SDK failed: it is not the
			// JSON it should be.
			if rec.eof && rec.status/100 == 2 {
				return Reply{}, c.parseError(rec, err)
			}
			return Reply{}, err
		}
		if len(resp.Choices) == 0 {
			return Reply{}, errors.New("the model returned no choices")
		}
		r := Reply{Content: resp.Choices[0].Message.Content, Reasoning: reasoningField(resp.Choices[0].Message.JSON.ExtraFields)}
		if sink := reasoningSink(ctx); sink != nil && r.Reasoning != "" {
			sink(r.Reasoning)
		}
		if resp.JSON.Usage.Valid() {
			r.HasUsage = true
			r.Usage = c.usage(resp.Usage)
		}
		if onText != nil && r.Content != "" {
			onText(r.Content)
		}
		return r, nil
	}
	var raw *http.Response
	err = ep.sdk.Post(ctx, "chat/completions", body, &raw, mw)
	stream := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(raw), err)
	defer stream.Close()
	var r Reply
	var text []byte
	finished := false
	chunks := 0
	for stream.Next() {
		chunks++
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() && (chunk.Usage.PromptTokens > 0 || chunk.Usage.CompletionTokens > 0) {
			r.HasUsage = true
			r.Usage = c.usage(chunk.Usage)
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.FinishReason != "" {
				finished = true
			}
			if rs := reasoningField(ch.Delta.JSON.ExtraFields); rs != "" {
				r.Reasoning += rs
				if sink := reasoningSink(ctx); sink != nil {
					sink(rs)
				}
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
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syntax) || errors.As(err, &typ) {
			return Reply{}, c.parseError(rec, err)
		}
		return Reply{}, fmt.Errorf("stream: %w", err)
	}
	if !finished {
		// A body with no event in it at all is not a stream (an HTML page,
		// a bare JSON object): show it rather than call it cut off.
		if chunks == 0 && rec.eof && !strings.Contains(string(rec.head), "data:") && strings.TrimSpace(string(rec.head)) != "" {
			return Reply{}, c.parseError(rec, errors.New("no server-sent events in the response"))
		}
		// A clean close without a finish_reason is still a cut-off reply.
		return Reply{}, ErrStreamCut
	}
	r.Content = string(text)
	return r, nil
}

// SetModel makes name the model of every later request (the REPL's
// /model); fallbacks stay as configured.
func (c *OpenAIClient) SetModel(name string) {
	rt := &c.retry
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.models[0] = name
	for i := 1; i < len(rt.models); i++ {
		if rt.models[i] == name {
			rt.models = append(rt.models[:i:i], rt.models[i+1:]...)
			break
		}
	}
	rt.current = 0
}

// Model returns the model requests go to first.
func (c *OpenAIClient) Model() string {
	rt := &c.retry
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.models[rt.current]
}

// BaseURL returns the endpoint the client talks to: the current model's.
func (c *OpenAIClient) BaseURL() string { return c.endpoint(c.Model()).baseURL }

// parseError keeps the start of the raw body, never the API key.
func (c *OpenAIClient) parseError(rec *recorder, err error) error {
	return &ParseError{Raw: c.redact(string(rec.head)), Err: err}
}

// ErrStreamCut reports a stream that ended before the reply was finished.
var ErrStreamCut = errors.New("the response stream was cut off before the reply finished")

// rawKeep is how much of a body the recorder keeps for error messages.
const rawKeep = 1024

// recorder watches one attempt's response: its status, and the first bytes
// of its body. It is used from the goroutine that runs the request and
// reads the body, so it needs no lock.
type recorder struct {
	onData func(body bool) // called whenever headers (false) or body bytes (true) arrive
	status int
	header http.Header
	head   []byte
	eof    bool // the body was read to its end
}

func (r *recorder) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if res != nil {
		r.onData(false)
		r.status = res.StatusCode
		r.header = res.Header
		if res.Body != nil {
			res.Body = &recordingBody{ReadCloser: res.Body, r: r}
		}
	}
	return res, err
}

type recordingBody struct {
	io.ReadCloser
	r *recorder
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.r.onData(true)
		if room := rawKeep - len(b.r.head); room > 0 {
			b.r.head = append(b.r.head, p[:min(n, room)]...)
		}
	}
	if errors.Is(err, io.EOF) {
		b.r.eof = true
	}
	return n, err
}
