// Package serve is `aci serve`: the sessions of one workspace over HTTP,
// their events as Server-Sent Events, and the web page (docs/protocol.md §7).
// Every turn runs through the session package, as in the REPL and pipe
// mode; this package only carries requests and events.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// DefaultAddr is where the server listens unless told otherwise.
const DefaultAddr = "127.0.0.1:7433"

// idleTimeout is how long a kept-alive connection may wait for its next
// request; browsers reconnect at once when it is gone.
const idleTimeout = 60 * time.Second

// Config is what a server is given.
type Config struct {
	// Factory makes the sessions; it holds the model settings, the API key
	// and the agent's configuration.
	Factory *session.Factory
	// Workdir is the workspace: every session works there, and the
	// sessions listed are its transcripts.
	Workdir string
	// Token is what every request but GET / must carry; empty: a random
	// one (NewToken).
	Token string
	// Approver answers every session's questions (aci serve --yes); nil:
	// each becomes an approval event that waits for a client's decision.
	Approver windows.Approver
	// Mode is the permission mode sessions start in ("" is default).
	Mode windows.PermMode
	// Trust lets the project's hooks and MCP servers run (--trust).
	Trust bool
	// Page serves GET / and its assets; nil: a short page pointing at the
	// API.
	Page http.Handler
	// Redact removes secrets from what goes out (main's set of secrets);
	// the session redacts already, this is the last look.
	Redact func(string) string
	// Log receives one line per request and what goes wrong; nil: nowhere.
	Log io.Writer
	// Heartbeat is how often an idle event stream gets a comment line, so
	// proxies keep it open; 0: 15 seconds.
	Heartbeat time.Duration
	// Events, when set, sees every event of every session this server
	// runs (the background server notifies of questions with it). It runs
	// on the session's own event goroutine and must not block for long.
	Events func(sessionID string, ev session.Event)
}

// Server runs a workspace's sessions for HTTP clients.
type Server struct {
	cfg   Config
	token string
	log   *log.Logger
	mux   *http.ServeMux

	// ctx ends when the server shuts down: event streams end with it.
	ctx    context.Context
	cancel context.CancelFunc

	// streams counts the open event streams; writeTimeout bounds one write
	// to a stream (tests shorten it).
	streams      atomic.Int64
	writeTimeout time.Duration
	// idleTimeout closes a kept-alive connection with no request (tests
	// shorten it); instance is this run's id (instanceHeader).
	idleTimeout time.Duration
	instance    string
	// withOptions, when set, changes the options of every session (the
	// latency benchmark watches the loop's events with it).
	withOptions func(*session.Options)

	mu     sync.Mutex
	live   map[string]*liveSession // loaded sessions by id
	loadMu sync.Mutex              // one transcript load at a time
	closed bool
}

// New makes a server; nothing listens until Serve or ListenAndServe.
func New(cfg Config) (*Server, error) {
	if cfg.Factory == nil {
		return nil, errors.New("serve: no session factory")
	}
	if cfg.Workdir == "" {
		return nil, errors.New("serve: no workspace")
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 15 * time.Second
	}
	if cfg.Redact == nil {
		cfg.Redact = func(s string) string { return s }
	}
	out := cfg.Log
	if out == nil {
		out = io.Discard
	}
	s := &Server{
		cfg:          cfg,
		token:        cfg.Token,
		log:          log.New(out, "aci serve: ", log.LstdFlags),
		live:         map[string]*liveSession{},
		writeTimeout: writeTimeout,
		idleTimeout:  idleTimeout,
		instance:     NewToken()[:16],
	}
	if s.token == "" {
		s.token = NewToken()
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mux = http.NewServeMux()
	s.register(s.mux)
	return s, nil
}

// Busy reports whether a session runs a turn or waits for an answer, or a
// client follows one: a background server stops only when none does.
func (s *Server) Busy() bool {
	if s.streams.Load() > 0 {
		return true
	}
	for _, l := range s.liveSessions() {
		if l.s.State() != session.StateIdle {
			return true
		}
	}
	return false
}

// Token is the token requests must carry.
func (s *Server) Token() string { return s.token }

// Handler is the whole server: the access checks, then the routes.
func (s *Server) Handler() http.Handler { return s.guard(s.mux) }

// URL is what to open in a browser for a server listening on addr: the
// page, with the token in the fragment, which a browser sends nowhere; the
// page keeps it in its origin's storage. A server on every interface is
// reached here through loopback.
func (s *Server) URL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return fmt.Sprintf("http://%s/#token=%s", addr, s.token)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return fmt.Sprintf("http://%s/#token=%s", net.JoinHostPort(host, port), s.token)
}

// ListenAndServe listens on addr (HOST:PORT; port 0 picks a free one),
// calls ready with the address it got, and serves until ctx ends.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(net.Addr)) error {
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	if ready != nil {
		ready(ln.Addr())
	}
	return s.Serve(ctx, ln)
}

// Serve answers requests on ln until ctx ends, then shuts down: running
// turns are cancelled, their commands and MCP servers end, transcripts
// stay. It returns nil after a shutdown asked for by ctx.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	lim := newConnLimit(ln, maxConns, maxConnsPerClient) // connlimit.go
	hs := &http.Server{
		ConnState:         lim.ConnState,
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// A connection left open with no request is closed: a client that
		// connects and waits costs nothing for long.
		IdleTimeout: s.idleTimeout,
		BaseContext: func(net.Listener) context.Context { return s.ctx },
		ErrorLog:    s.log,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(lim) }()
	select {
	case err := <-errc:
		s.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// Streams end with s.ctx; the sessions end before Shutdown waits for
	// the handlers, so none waits on a turn.
	s.Close()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		hs.Close()
	}
	<-errc
	return nil
}

// Close ends every session (running turns cancelled, tasks and servers
// ended, transcripts kept) and every event stream. The server answers
// nothing more.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	list := make([]*session.Session, 0, len(s.live))
	for _, l := range s.live {
		if !l.hosted {
			list = append(list, l.s)
		}
	}
	s.live = map[string]*liveSession{}
	s.mu.Unlock()
	s.cancel()
	var wg sync.WaitGroup
	for _, ss := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ss.Close() // cancels a running turn and waits for its end
		}()
	}
	wg.Wait()
}
