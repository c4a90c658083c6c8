package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/internal/jsonrpc"
)

// errSessionExpired ends a connection whose server forgot its session.
var errSessionExpired = errors.New("the server ended the session (HTTP 404 for its session id): it expired or the server restarted")

// httpTransport is MCP's streamable HTTP transport
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http):
// each message is a POST, answered with JSON or an SSE stream that may
// also carry the server's requests; a GET stream carries what the server
// sends on its own (list changes); DELETE ends the session.
type httpTransport struct {
	c       *conn
	url     string
	client  *http.Client
	retries int // reconnections of an SSE stream that makes no progress

	ctx    context.Context // the connection's life
	cancel context.CancelFunc
	listen sync.WaitGroup

	mu      sync.Mutex
	session string // Mcp-Session-Id, from the answer to initialize
	version string // MCP-Protocol-Version, once agreed
	expired bool
}

func dialHTTP(c *conn, url string, client *http.Client, retries int) *httpTransport {
	ctx, cancel := context.WithCancel(context.Background())
	return &httpTransport{c: c, url: url, client: client, retries: retries, ctx: ctx, cancel: cancel}
}

func (t *httpTransport) start() {}

func (t *httpTransport) agreed(version string) {
	t.mu.Lock()
	t.version = version
	t.mu.Unlock()
}

func (t *httpTransport) ready() {
	t.listen.Add(1)
	go t.listenLoop()
}

func (t *httpTransport) send(ctx context.Context, data []byte, id int64) error {
	ctx, stop := t.linked(ctx)
	defer stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := t.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if id == 0 {
		return nil
	}
	switch mediaType(resp) {
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(maxMessage)+1))
		switch {
		case err != nil:
			return fmt.Errorf("reading the answer: %w", err)
		case len(body) > maxMessage:
			t.c.resolve(id, reply{err: errTooLarge()})
		case t.c.deliver(body) != id:
			t.c.resolve(id, reply{err: errors.New("the server's JSON answer is not the response to the request")})
		}
		return nil
	case "text/event-stream":
		return t.answerStream(ctx, resp, id)
	}
	return fmt.Errorf("the server answered with %q, neither JSON nor an event stream", resp.Header.Get("Content-Type"))
}

// answerStream reads a POST's event stream until it carries the answer to
// call id; a stream that breaks is resumed where the server allows it.
func (t *httpTransport) answerStream(ctx context.Context, resp *http.Response, id int64) error {
	lastID, tries := "", 0
	for {
		before := lastID
		answered := false
		var wait time.Duration
		err := readSSE(resp.Body, func(ev sseEvent) bool {
			if ev.id != "" {
				lastID = ev.id
			}
			if ev.retry > 0 {
				wait = ev.retry
			}
			answered = ev.message() && t.c.deliver(ev.data) == id
			return !answered
		})
		resp.Body.Close()
		switch {
		case answered:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, errEventTooLarge):
			t.c.resolve(id, reply{err: errTooLarge()})
			return nil
		case lastID == "":
			t.c.resolve(id, reply{err: errors.New("the server ended the answer's event stream without answering")})
			return nil
		}
		if lastID == before {
			tries++
		} else {
			tries = 0
		}
		if tries > t.retries {
			return fmt.Errorf("the answer's event stream broke %d times without progress", tries)
		}
		if resp, err = t.get(ctx, lastID, wait, tries); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream" {
			resp.Body.Close()
			return fmt.Errorf("resuming the answer's event stream: HTTP %s", resp.Status)
		}
	}
}

// listenLoop keeps the GET stream open for what the server sends on its
// own; a server that offers none answers 405.
func (t *httpTransport) listenLoop() {
	defer t.listen.Done()
	lastID, tries := "", 0
	var wait time.Duration
	for t.ctx.Err() == nil {
		resp, err := t.get(t.ctx, lastID, wait, tries)
		if err != nil {
			if t.ctx.Err() == nil && !errors.Is(err, errSessionExpired) && tries < t.retries {
				tries++
				continue
			}
			return
		}
		if resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream" {
			resp.Body.Close()
			return // no stream here: list changes show at the next start
		}
		progress := false
		err = readSSE(resp.Body, func(ev sseEvent) bool {
			if ev.id != "" {
				lastID, progress = ev.id, true
			}
			if ev.retry > 0 {
				wait = ev.retry
			}
			if ev.message() {
				t.c.deliver(ev.data)
			}
			return true
		})
		resp.Body.Close()
		if errors.Is(err, errEventTooLarge) {
			t.c.note(fmt.Sprintf("aci: skipped an event of more than %d bytes", maxMessage))
		}
		if progress {
			tries = 0
		}
		if tries++; tries > t.retries {
			return
		}
	}
}

// get opens an event stream, after the delay a reconnection waits: the
// server's retry, or a backoff growing with tries.
func (t *httpTransport) get(ctx context.Context, lastID string, wait time.Duration, tries int) (*http.Response, error) {
	if tries > 0 {
		if wait <= 0 {
			wait = time.Second * time.Duration(1<<min(tries-1, 5))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	return t.roundTrip(req)
}

// roundTrip sends a request in the session; a 404 to it ends the session.
func (t *httpTransport) roundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.client.Do(t.withSession(req))
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("the server closed the connection without answering (%w)", err)
	}
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotFound && req.Header.Get("Mcp-Session-Id") != "" {
		resp.Body.Close()
		t.mu.Lock()
		t.expired = true
		t.mu.Unlock()
		t.c.end(errSessionExpired)
		return nil, errSessionExpired
	}
	return resp, nil
}

// do sends a POST and turns an HTTP failure into an error that says it.
func (t *httpTransport) do(req *http.Request) (*http.Response, error) {
	resp, err := t.roundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		var m jsonrpc.Message
		if json.Unmarshal(body, &m) == nil && m.Error != nil {
			return nil, fmt.Errorf("HTTP %s: %w", resp.Status, m.Error)
		}
		text := strings.TrimSpace(string(body))
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[:i]
		}
		if text != "" {
			text = ": " + OneLine(text)
		}
		return nil, fmt.Errorf("HTTP %s%s", resp.Status, text)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		t.mu.Lock()
		if t.session == "" {
			t.session = id
		}
		t.mu.Unlock()
	}
	return resp, nil
}

func (t *httpTransport) withSession(req *http.Request) *http.Request {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session != "" {
		req.Header.Set("Mcp-Session-Id", t.session)
	}
	if t.version != "" {
		req.Header.Set("MCP-Protocol-Version", t.version)
	}
	return req
}

// linked is ctx, also canceled when the connection closes.
func (t *httpTransport) linked(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(t.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// close ends the session on the server (DELETE) and stops the streams.
func (t *httpTransport) close() {
	t.mu.Lock()
	session, expired := t.session, t.expired
	t.mu.Unlock()
	if session != "" && !expired {
		ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
		if req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.url, nil); err == nil {
			if resp, err := t.client.Do(t.withSession(req)); err == nil {
				resp.Body.Close()
			}
		}
		cancel()
	}
	t.cancel()
	t.listen.Wait()
}

func mediaType(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt
}
