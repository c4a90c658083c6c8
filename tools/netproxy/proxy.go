package netproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Asker decides a host the policy does not know, for one command: allow
// or not, and when not, why (the refused client is told). It may block
// while a person thinks; ctx ends when the command does.
type Asker func(ctx context.Context, host string, port int) (allow bool, why string)

// Proxy judges and forwards the connections of contained commands under
// one policy. It holds no listener of its own: Serve serves one command's.
type Proxy struct {
	policy   Policy
	dialer   net.Dialer
	upstream Upstream
}

// New returns a Proxy that applies p, going out through the proxy aci's
// own environment names, if any.
func New(p Policy) *Proxy {
	return &Proxy{policy: p, dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}, upstream: fromEnvironment}
}

// Policy is the policy the proxy applies.
func (p *Proxy) Policy() Policy { return p.policy }

// maxAnswers bounds the hosts off the lists one command may ask about:
// memory stays bounded, and a person is not asked a thousand times.
const maxAnswers = 64

// Served is one command's proxy: it runs until Close.
type Served struct {
	p      *Proxy
	ask    Asker
	ctx    context.Context
	cancel context.CancelFunc
	srv    *http.Server
	fwd    *httputil.ReverseProxy
	done   chan struct{}

	askMu   sync.Mutex        // one question at a time per command
	mu      sync.Mutex        // guards what follows
	answers map[string]bool   // host:port → the person's answer for this command
	denied  []string          // refused host:port, in order, once each
	tunnels map[net.Conn]bool // hijacked connections, closed by Close
}

// Serve serves ln (one command's connections) until Close; ask (nil:
// refuse) decides hosts on neither list.
func (p *Proxy) Serve(ln net.Listener, ask Asker) *Served {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Served{p: p, ask: ask, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		answers: map[string]bool{}, tunnels: map[net.Conn]bool{}}
	tr := &http.Transport{
		Proxy: func(r *http.Request) (*url.URL, error) {
			if p.upstream == nil {
				return nil, nil
			}
			return p.upstream(r.URL)
		},
		DialContext:           p.dialer.DialContext,
		ForceAttemptHTTP2:     false,
		MaxIdleConns:          8,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   30 * time.Second,
		ResponseHeaderTimeout: 5 * time.Minute,
	}
	s.fwd = &httputil.ReverseProxy{
		// The request goes out as the client wrote it; redirects come
		// back to the client, which follows them with a new request that
		// is judged afresh.
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.Out.Host = pr.In.Host },
		Transport:     tr,
		FlushInterval: 100 * time.Millisecond,
		ErrorLog:      log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			refuse(w, http.StatusBadGateway, "aci proxy: "+r.URL.Host+": "+err.Error())
		},
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second, ErrorLog: log.New(io.Discard, "", 0),
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
		tr.CloseIdleConnections()
	}()
	return s
}

// Close stops serving, ends open tunnels and any question still waiting.
func (s *Served) Close() error {
	s.cancel()
	err := s.srv.Close()
	s.mu.Lock()
	for c := range s.tunnels {
		c.Close()
	}
	s.mu.Unlock()
	<-s.done
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Denied lists the host:port the command was refused, each once.
func (s *Served) Denied() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.denied...)
}

// ServeHTTP handles one proxy request: CONNECT opens a tunnel, a request
// in absolute form ("GET http://host/path") is forwarded. A request in
// origin form comes from a client that does not know it talks to a proxy;
// its Host header alone would name the target, so it is refused.
func (s *Served) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		s.connect(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		refuse(w, http.StatusBadRequest, "aci proxy: this is an HTTP proxy; send absolute URLs (http://host/path) or CONNECT host:port")
		return
	}
	port := 80
	if r.URL.Scheme == "https" {
		port = 443
	} else if r.URL.Scheme != "http" {
		refuse(w, http.StatusBadRequest, "aci proxy: unsupported scheme "+r.URL.Scheme)
		return
	}
	host := r.URL.Hostname()
	if p := r.URL.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			refuse(w, http.StatusBadRequest, "aci proxy: bad port "+p)
			return
		}
		port = n
	}
	if ok, why := s.judge(r.Context(), host, port); !ok {
		refuse(w, http.StatusForbidden, why)
		return
	}
	s.fwd.ServeHTTP(w, r)
}

// connect judges a CONNECT target, dials it and splices the two
// connections; the client's bytes are not read, so TLS stays end to end.
func (s *Served) connect(w http.ResponseWriter, r *http.Request) {
	host, portStr, err := net.SplitHostPort(r.Host)
	port, perr := strconv.Atoi(portStr)
	if err != nil || perr != nil {
		refuse(w, http.StatusBadRequest, "aci proxy: CONNECT needs host:port, got "+r.Host)
		return
	}
	if ok, why := s.judge(r.Context(), host, port); !ok {
		refuse(w, http.StatusForbidden, why)
		return
	}
	up, err := s.p.dialTunnel(r.Context(), net.JoinHostPort(host, portStr))
	if err != nil {
		refuse(w, http.StatusBadGateway, "aci proxy: "+err.Error())
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		refuse(w, http.StatusInternalServerError, "aci proxy: cannot tunnel")
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !s.track(conn, up) {
		return
	}
	defer s.untrack(conn, up)
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		// rw.Reader first: bytes the client sent right after CONNECT.
		io.Copy(up, rw.Reader)
		if tc, ok := up.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		close(done)
	}()
	io.Copy(conn, up)
	closeWrite(conn)
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// track records a tunnel's two ends for Close; false when Close already
// ran (and then both are closed).
func (s *Served) track(a, b net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		a.Close()
		b.Close()
		return false
	}
	s.tunnels[a], s.tunnels[b] = true, true
	return true
}

func (s *Served) untrack(a, b net.Conn) {
	s.mu.Lock()
	delete(s.tunnels, a)
	delete(s.tunnels, b)
	s.mu.Unlock()
	a.Close()
	b.Close()
}

// judge decides host:port for this command: the policy, else the answer
// already given for this command, else the asker. Refusals are recorded.
func (s *Served) judge(ctx context.Context, host string, port int) (bool, string) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	target := net.JoinHostPort(host, strconv.Itoa(port))
	v, rule := s.p.policy.Decide(host, port)
	switch v {
	case Allow:
		return true, ""
	case Deny:
		s.refused(target)
		return false, "aci proxy: " + target + " is refused (" + rule + ")"
	}
	s.askMu.Lock()
	defer s.askMu.Unlock()
	s.mu.Lock()
	ans, known := s.answers[target]
	s.mu.Unlock()
	why := ""
	if !known {
		if len(s.answers) >= maxAnswers {
			s.refused(target)
			return false, "aci proxy: " + target + ": this command asked for too many hosts off the allow list"
		}
		if s.ask == nil {
			why = "no one can be asked"
		} else {
			actx, cancel := context.WithCancel(s.ctx)
			stop := context.AfterFunc(ctx, cancel)
			ans, why = s.ask(actx, host, port)
			stop()
			cancel()
		}
		s.mu.Lock()
		s.answers[target] = ans
		s.mu.Unlock()
	}
	if ans {
		return true, ""
	}
	s.refused(target)
	msg := fmt.Sprintf("aci proxy: %s is not on the allow list and was not allowed", target)
	if why != "" {
		msg += ": " + why
	}
	return false, msg
}

func (s *Served) refused(target string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.denied {
		if d == target {
			return
		}
	}
	if len(s.denied) < 20 {
		s.denied = append(s.denied, target)
	}
}

// refuse answers with code and a one-line reason, which curl, pip and npm
// show; the connection is closed after.
func refuse(w http.ResponseWriter, code int, why string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.Header().Set("X-Aci-Proxy", "refused")
	w.WriteHeader(code)
	io.WriteString(w, why+"\n")
}
