package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/aci-dev/aci/serve"
	"github.com/aci-dev/aci/serve/web"
	"github.com/aci-dev/aci/session"
)

// replServer is the server a REPL starts in its own process with /serve
// or --serve: the page and API of aci serve, with the REPL's session
// hosted on it (docs/protocol.md §1).
type replServer struct {
	cfg     config
	factory *session.Factory
	workdir string

	mu     sync.Mutex
	srv    *serve.Server
	addr   net.Addr
	cancel context.CancelFunc
	done   chan struct{}
}

// serve starts the server at addr ("" the default) if it is not running,
// hosts s on it, and returns the page's address on s.
func (h *replServer) serve(addr string, s *session.Session) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.srv == nil {
		if addr == "" {
			addr = h.cfg.ServeREPLAddr
		}
		if addr == "" {
			addr = defaultServeAddr
		}
		if err := checkAddr("/serve", addr); err != nil {
			return "", err
		}
		token := h.cfg.ServeToken
		if token == "" {
			token = serve.NewToken()
		}
		h.cfg.Secrets.Add(token)
		srv, err := serve.New(serve.Config{
			Factory: h.factory,
			Workdir: h.workdir,
			Token:   token,
			Redact:  h.cfg.Secrets.Redact,
			Log:     io.Discard, // the terminal is the REPL's
			Page:    web.Handler(),
		})
		if err != nil {
			return "", err
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return "", fmt.Errorf("listen on %s: %w", addr, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		h.srv, h.addr, h.cancel, h.done = srv, ln.Addr(), cancel, make(chan struct{})
		go func() {
			defer close(h.done)
			srv.Serve(ctx, ln)
		}()
	} else if addr != "" && addr != h.addr.String() {
		return "", fmt.Errorf("already serving at %s", h.addr)
	}
	if err := h.srv.Host(s); err != nil {
		return "", err
	}
	u := h.srv.SessionURL(h.addr, s.ID())
	if !serve.IsLoopback(h.addr.String()) {
		u += "\n  warning: reachable from other machines: anyone with the token can run commands here as you (docs/serve.md)"
	}
	return u, nil
}

// stop ends the server (the REPL's sessions are the REPL's to close).
func (h *replServer) stop() {
	h.mu.Lock()
	cancel, done := h.cancel, h.done
	h.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}
