// Package fakeai is a fake OpenAI-compatible chat-completions server for
// tests. It speaks the real wire format (JSON and SSE streaming), serves
// scripted replies, records requests, and checks every request and every
// one of its own replies against the official OpenAI schemas, so a test
// fails when the client sends something the real API would reject or when
// the fake would teach the client something the real API never sends.
package fakeai

import (
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// TB is the part of testing.TB the fake uses. A *testing.T or *testing.B
// is one; a command (bench/fakemodel) passes its own that logs.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Server is a running fake. Point a client at URL.
type Server struct {
	URL string // base URL ending in /v1, e.g. for OPENAI_BASE_URL

	t         TB
	srv       *httptest.Server
	done      chan struct{} // closed on Close so hanging handlers return
	closeOnce sync.Once

	mu      sync.Mutex
	queue   []Reply
	handler func(Request) Reply
	reqs    []Request
	changed chan struct{} // closed and replaced whenever a request is recorded

	info     Info // what the info endpoints answer (info.go), under mu
	infoReqs int
}

// New starts a fake that answers requests with replies in order. Once they
// run out (and no Handle func is set) each further request is answered
// with a 500 and fails the test. The server is closed by t.Cleanup.
func New(t TB, replies ...Reply) *Server {
	t.Helper()
	return start(t, nil, replies)
}

// start is New on the listener l (nil: a loopback port).
func start(t TB, l net.Listener, replies []Reply) *Server {
	t.Helper()
	// Compile up front: a broken schema file fails here, not in a handler,
	// and the first request is not slowed down.
	if _, err := load(); err != nil {
		t.Fatalf("fakeai: %v", err)
	}
	s := &Server{
		t:       t,
		queue:   append([]Reply(nil), replies...),
		done:    make(chan struct{}),
		changed: make(chan struct{}),
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	if l != nil {
		s.srv.Listener.Close()
		s.srv.Listener = l
	}
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// Push queues more replies after the ones not yet served.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Handle sets a func that computes replies dynamically. Queued replies are
// still served first; f answers whenever the queue is empty. f runs on
// handler goroutines, possibly concurrently.
func (s *Server) Handle(f func(req Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = f
}

// Requests returns the requests received so far, in arrival order.
// The returned Requests share Body, Header and Raw with the fake's record;
// do not modify them.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Sent is the text of every message of every request so far, joined: all
// the model was sent.
func (s *Server) Sent() string {
	var sb strings.Builder
	for _, r := range s.Requests() {
		sb.WriteString(r.Text())
	}
	return sb.String()
}

// Remaining returns how many queued replies have not been served.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// WaitRequests blocks until at least n requests have arrived and returns
// them; after timeout it fails the test with t.Fatalf, so call it from the
// test goroutine.
func (s *Server) WaitRequests(n int, timeout time.Duration) []Request {
	s.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if len(s.reqs) >= n {
			out := append([]Request(nil), s.reqs...)
			s.mu.Unlock()
			return out
		}
		got, ch := len(s.reqs), s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			s.t.Fatalf("fakeai: waited %v for %d requests, got %d", timeout, n, got)
			return nil
		}
	}
}

// Close releases hanging handlers and shuts the server down; later
// connections are refused (useful to simulate an unreachable API).
// It is called automatically at cleanup and is safe to call twice.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.Close()
	})
}

const chatPath = "/v1/chat/completions"

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.serveInfo(w, r) {
		return
	}
	if r.URL.Path != chatPath {
		s.t.Errorf("fakeai: unexpected %s %s (only POST %s is served)", r.Method, r.URL.Path, chatPath)
		s.writeError(w, Reply{Status: http.StatusNotFound, ErrorMessage: "Invalid URL (" + r.Method + " " + r.URL.Path + ")"})
		return
	}
	if r.Method != http.MethodPost {
		s.t.Errorf("fakeai: unexpected %s %s", r.Method, r.URL.Path)
		s.writeError(w, Reply{Status: http.StatusMethodNotAllowed, ErrorMessage: "Method not allowed: " + r.Method})
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // client went away mid-body; nothing to answer
	}
	req, queued, popped := s.record(body, r.Header.Clone())
	if req.Invalid != nil {
		s.t.Errorf("fakeai: request #%d: %v\nbody: %.2000s", req.N, req.Invalid, body)
		s.writeError(w, Reply{Status: http.StatusBadRequest, ErrorMessage: req.Invalid.Error()})
		return
	}
	rep, ok := queued, popped
	if !ok {
		rep, ok = s.handle(req)
	}
	if !ok {
		s.t.Errorf("fakeai: unexpected request #%d (no scripted reply left); last user message: %.300q", req.N, req.LastUser())
		rep = Reply{Status: http.StatusInternalServerError, ErrorMessage: "fakeai: no scripted reply left"}
	}
	s.respond(w, r, req, rep)
}

// record parses, checks and stores one request and, for a valid one, pops
// the next queued reply in the same step: replies go to requests in the
// order they arrived, whatever the handlers' goroutines do next.
func (s *Server) record(body []byte, h http.Header) (req Request, queued Reply, popped bool) {
	var invalid error // checked before locking: concurrent requests need not queue
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt != "application/json" {
		invalid = fmt.Errorf("Content-Type is %q, want application/json", h.Get("Content-Type"))
	} else {
		invalid = ValidateRequest(body)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	req = parseRequest(len(s.reqs)+1, body, h)
	req.Invalid = invalid
	s.reqs = append(s.reqs, req)
	close(s.changed)
	s.changed = make(chan struct{})
	if invalid == nil && len(s.queue) > 0 {
		queued, popped = s.queue[0], true
		s.queue = s.queue[1:]
	}
	return req, queued, popped
}

// handle asks the Handle func, for a request that found the queue empty;
// the func runs unlocked so it may call Requests or Push.
func (s *Server) handle(req Request) (Reply, bool) {
	s.mu.Lock()
	h := s.handler
	s.mu.Unlock()
	if h == nil {
		return Reply{}, false
	}
	return h(req), true
}
