package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// The real context window. A local server runs a model with the window it
// was started with, often far smaller than the model allows (Ollama's
// default is 4096 tokens), and silently drops the start of a prompt that
// does not fit: the system prompt and the tools go first. So aci asks the
// server, compresses before the window fills, and refuses to send a prompt
// that cannot fit.

// DefaultFirstByteTimeout is how long a request may wait for its first
// byte: long on loopback, where a local GPU may process a long prompt for
// minutes, shorter for a remote API.
func DefaultFirstByteTimeout(baseURL string) time.Duration {
	if u, err := url.Parse(baseURL); err == nil && isLoopbackHost(u.Hostname()) {
		return 10 * time.Minute
	}
	return 3 * time.Minute
}

// defaultSlowNotice is how long without a first byte before the person is
// told the server is still processing.
const defaultSlowNotice = 10 * time.Second

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Window is a model's context window as its server reports it.
type Window struct {
	Tokens int64  // 0: unknown
	Server string // "Ollama", "llama.cpp", "LM Studio", "vLLM"; "" if unknown
	Model  string
	// Assumed marks a server default rather than a reported window (Ollama
	// before the model is loaded): it is asked again at the next request,
	// and it never stops a turn.
	Assumed bool
}

// ErrContextTooSmall ends a turn whose prompt cannot fit the model's
// context window even after compression; errors.Is finds it in the error
// fitContext returns, whose own text is the one line shown.
var ErrContextTooSmall = errors.New("the prompt does not fit the model's context window")

type contextTooSmall struct{ msg string }

func (e contextTooSmall) Error() string        { return e.msg }
func (e contextTooSmall) Is(target error) bool { return target == ErrContextTooSmall }

// compressShare is the part of the window a prompt may fill before the
// history is compressed: the rest is room for the reply and the next step.
const compressShare = 0.75

// windowProbeTimeout bounds asking the server once per model.
const windowProbeTimeout = 2 * time.Second

// smallWindow is the window a local server commonly runs a model with
// (Ollama's default). A first prompt that could not fit it waits for the
// server's answer before it is sent; a smaller one goes at once, the
// window asked for alongside.
const smallWindow = ollamaDefaultContext

// windowCache keeps the probed window of each model.
type windowCache struct {
	mu      sync.Mutex
	byID    map[string]Window       // reported windows
	guess   map[string]Window       // assumed windows (asked again)
	pending map[string]*windowProbe // probes on their way
}

// windowProbe is one asking of the server; w is set when done is closed.
type windowProbe struct {
	done chan struct{}
	w    Window
}

// ContextWindow is the current model's window as far as it is known. The
// first call for a model starts asking the server, in the background, if
// the server can answer (probeTarget); with wait it waits for the answer
// (at most windowProbeTimeout), else it returns at once: Window{} (only
// ACI_COMPRESS_TOKENS applies) until the answer came. A server that does
// not say gives Window{}.
func (c *OpenAIClient) ContextWindow(ctx context.Context, wait bool) Window {
	model := c.Model()
	c.window.mu.Lock()
	if w, ok := c.window.byID[model]; ok {
		c.window.mu.Unlock()
		return w
	}
	p := c.window.pending[model]
	if p == nil {
		target := probeTarget(c.endpoint(model).baseURL)
		if target == probeNone {
			w := Window{Model: model}
			c.cacheLocked(model, w)
			c.window.mu.Unlock()
			return w
		}
		p = &windowProbe{done: make(chan struct{})}
		if c.window.pending == nil {
			c.window.pending = map[string]*windowProbe{}
		}
		c.window.pending[model] = p
		go c.probe(model, target, p)
	}
	guess, guessed := c.window.guess[model]
	c.window.mu.Unlock()
	if wait {
		select {
		case <-p.done:
		case <-ctx.Done():
		}
	}
	select {
	case <-p.done:
		return p.w
	default:
		if guessed {
			return guess
		}
		return Window{Model: model}
	}
}

// probe asks the server for model's window and keeps the answer: a
// reported window for good, an assumed one until the next request asks
// again.
func (c *OpenAIClient) probe(model string, target probeKind, p *windowProbe) {
	ctx, cancel := context.WithTimeout(context.Background(), windowProbeTimeout)
	defer cancel()
	w := Window{Model: model}
	ep := c.endpoint(model)
	if target == probeResolve {
		target = resolveTarget(ctx, ep.baseURL)
	}
	switch target {
	case probeLocal:
		w = ProbeWindow(ctx, ep.baseURL, ep.key, ep.model)
		w.Model = model
	case probeOpenRouter:
		w = probeOpenRouterWindow(ctx, ep.baseURL, ep.key, ep.model)
		w.Model = model
	}
	c.window.mu.Lock()
	delete(c.window.pending, model)
	switch {
	case w.Assumed:
		if c.window.guess == nil {
			c.window.guess = map[string]Window{}
		}
		c.window.guess[model] = w
	case ctx.Err() == nil || w.Tokens > 0:
		c.cacheLocked(model, w)
	}
	c.window.mu.Unlock()
	p.w = w
	close(p.done)
}

func (c *OpenAIClient) cacheLocked(model string, w Window) {
	if c.window.byID == nil {
		c.window.byID = map[string]Window{}
	}
	c.window.byID[model] = w
	delete(c.window.guess, model)
}

// windowed is a Client that can tell its context window.
type windowed interface {
	ContextWindow(ctx context.Context, wait bool) Window
}

// ContextWindow returns the model's window as last asked (Tokens 0 when
// unknown), for /usage beside Stats().LastPrompt.
func (c *Conversation) ContextWindow() Window { return c.ctxWindow }

// compressLimit is the prompt size that triggers compression: the
// configured threshold, or three quarters of the window when smaller.
func (c *Conversation) compressLimit() int64 {
	limit := c.cfg.CompressTokens
	if w := c.ctxWindow.Tokens; w > 0 {
		if l := int64(float64(w) * compressShare); limit <= 0 || l < limit {
			limit = l
		}
	}
	return limit
}

// replyRoom is what a request leaves of the window for the reply.
func replyRoom(window int64) int64 { return min(window/8, 4096) }

// fitContext runs before each request: it learns the window (once per
// model), compresses when the prompt outgrew the limit, and stops the turn
// with a one-line fix when even the compressed prompt cannot fit.
func (c *Conversation) fitContext(ctx context.Context) error {
	est := max(c.lastPrompt, estimateTokens(c.Messages()))
	if wc, ok := c.client.(windowed); ok {
		// A first request that fits a small local window needs no window:
		// it is asked before the second request, which waits for the answer
		// (a one-question run never asks). A first request that might
		// overflow one waits for it: a server silently drops the start of a
		// prompt that does not fit.
		small := est <= smallWindow-replyRoom(smallWindow)
		switch {
		case c.ctxWindow.Tokens == 0 && !small:
			c.ctxWindow = wc.ContextWindow(ctx, true)
			c.windowAsked = true
		case !c.windowAsked && len(c.history) == 1:
		default:
			c.ctxWindow = wc.ContextWindow(ctx, !c.windowAsked)
			c.windowAsked = true
		}
	}
	window := c.ctxWindow.Tokens
	overflow := window > 0 && est > window-replyRoom(window)
	limit := c.compressLimit()
	if len(c.history) > 1 && (overflow || (limit > 0 && est > limit)) {
		// Dropping superseded renderings may be enough: cheaper than a
		// summary, and it loses nothing.
		fit := limit
		if room := window - replyRoom(window); window > 0 && (fit <= 0 || room < fit) {
			fit = room
		}
		if c.rebaseToFit(fit) {
			est = estimateTokens(c.Messages())
			overflow = window > 0 && est > window-replyRoom(window)
		}
	}
	if len(c.history) > 1 && (overflow || (limit > 0 && est > limit)) {
		// A history that overflows the window goes as a cut-down transcript:
		// a server would silently drop the start of the full one.
		c.beforeCompress(ctx, "auto", "")
		if _, err := c.compress(ctx, "", overflow); err != nil {
			return err
		}
		est = estimateTokens(c.Messages())
	}
	if window > 0 && !c.ctxWindow.Assumed && est > window-replyRoom(window) {
		return contextTooSmall{fmt.Sprintf("the prompt (about %d tokens and the reply) does not fit %s's context window %s (%d tokens): %s",
			est, c.ctxWindow.Model, onServer(c.ctxWindow.Server), window, windowFix(c.ctxWindow))}
	}
	return nil
}

func onServer(name string) string {
	if name == "" {
		return "on this server"
	}
	return "on " + name
}

// windowFix is the one line that gets a larger window from each server.
func windowFix(w Window) string {
	want := strconv.FormatInt(max(32768, nextPow2(w.Tokens*4)), 10)
	switch w.Server {
	case "Ollama":
		return "restart it with a larger one: OLLAMA_CONTEXT_LENGTH=" + want + " ollama serve (or PARAMETER num_ctx " + want + " in a Modelfile)"
	case "llama.cpp":
		return "restart llama-server with a larger one: -c " + want
	case "LM Studio":
		return "reload the model with a larger one: lms load " + w.Model + " --context-length " + want
	case "vLLM":
		return "restart vLLM with a larger one: --max-model-len " + want
	}
	return "use a model or server with a larger context window"
}

func nextPow2(n int64) int64 {
	p := int64(1024)
	for p < n {
		p *= 2
	}
	return p
}

// Use says how much of the window a prompt of n tokens fills, for /usage:
// "3.1k of 8192 tokens on llama.cpp (38%)"; "" when the window is unknown.
func (w Window) Use(n int64) string {
	if w.Tokens <= 0 {
		return ""
	}
	size := strconv.FormatInt(n, 10)
	if n >= 1000 {
		size = strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	}
	s := fmt.Sprintf("%s of %d tokens", size, w.Tokens)
	if w.Server != "" {
		s += " on " + w.Server
	}
	if w.Assumed {
		s += " (its default, until the model is loaded)"
	}
	return s + fmt.Sprintf(" (%d%%)", n*100/w.Tokens)
}
