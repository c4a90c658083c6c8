package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/internal/dirs"
	"github.com/aci-dev/aci/tools/sandbox"
)

// Defaults for Options.
const (
	DefaultCallTimeout  = 60 * time.Second
	DefaultStartTimeout = 60 * time.Second
	// terminateWait is how long a stdio server has to exit once its input
	// closes before it is signalled.
	terminateWait = time.Second
	// httpRetries is how often an HTTP server's event stream is reopened
	// when it breaks without progress.
	httpRetries = 2
)

// Options tune a Pool.
type Options struct {
	Workdir      string        // where stdio servers run
	CallTimeout  time.Duration // one tool call or resource read
	StartTimeout time.Duration // start and handshake
	LogDir       string        // where servers' stderr goes; default LogDir()
	Version      string        // aci's version, told to servers
	// Dial, when set, opens the connection to a server instead of the
	// configuration: newline-delimited JSON-RPC over the stream it
	// returns (in-process servers in tests).
	Dial func(ServerConfig) (io.ReadWriteCloser, error)
	// Verify, when set, is asked before a server starts: an error keeps
	// it from starting, and says why (a workspace file it runs changed
	// since the folder was trusted).
	Verify func(ServerConfig) error
}

// LogDir is $XDG_STATE_HOME/aci/mcp, or ~/.local/state/aci/mcp.
func LogDir() string {
	if d := dirs.StateFile("mcp"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "aci-mcp")
}

// Pool holds the servers of one aci session: each starts when first
// acquired and stops when its last user releases it, or at Close.
type Pool struct {
	cfg  Config
	opts Options

	mu      sync.Mutex
	servers map[string]*Server
	closed  bool
	always  map[string]bool // "server\x00tool" the person allowed for the session
}

// Always reports whether the person allowed every call of a tool for the
// rest of the session.
func (p *Pool) Always(server, tool string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.always[server+"\x00"+tool]
}

// SetAlways remembers that the person allowed every call of a tool.
func (p *Pool) SetAlways(server, tool string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.always[server+"\x00"+tool] = true
}

// NewPool makes an empty pool over a configuration.
func NewPool(cfg Config, opts Options) *Pool {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.LogDir == "" {
		opts.LogDir = LogDir()
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &Pool{cfg: cfg, opts: opts, servers: map[string]*Server{}, always: map[string]bool{}}
}

// Config is the configuration the pool serves.
func (p *Pool) Config() Config { return p.cfg }

// CallTimeout is the limit of one call.
func (p *Pool) CallTimeout() time.Duration { return p.opts.CallTimeout }

// Lookup returns a server's configuration, or an error naming the
// configured servers.
func (p *Pool) Lookup(name string) (ServerConfig, error) {
	sc, ok := p.cfg.Servers[name]
	if ok {
		return sc, nil
	}
	names := p.cfg.Names()
	where := fmt.Sprintf("add it to .mcp.json in the workspace or to %s", UserConfigPath())
	if len(names) == 0 {
		return ServerConfig{}, fmt.Errorf("no MCP server %q: none is configured (%s)", name, where)
	}
	return ServerConfig{}, fmt.Errorf("no MCP server %q; configured: %s (or %s)", name, strings.Join(names, ", "), where)
}

// Acquire returns the named server, started, for one more user; each
// Acquire that succeeds is paired with a Release.
func (p *Pool) Acquire(ctx context.Context, name string) (*Server, error) {
	sc, err := p.Lookup(name)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("aci is shutting down")
	}
	s := p.servers[name]
	if s == nil {
		s = &Server{pool: p, cfg: sc}
		p.servers[name] = s
	}
	s.refs++
	p.mu.Unlock()
	if err := s.ensure(ctx); err != nil {
		p.Release(s)
		return nil, err
	}
	return s, nil
}

// Release gives a server back; the last release stops it.
func (p *Pool) Release(s *Server) {
	p.mu.Lock()
	s.refs--
	last := s.refs <= 0
	if last && p.servers[s.cfg.Name] == s {
		delete(p.servers, s.cfg.Name)
	}
	p.mu.Unlock()
	if last {
		s.stop()
	}
}

// Close stops every server, whoever still uses it; for when aci exits.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	servers := make([]*Server, 0, len(p.servers))
	for _, s := range p.servers {
		servers = append(servers, s)
	}
	p.servers = map[string]*Server{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() { defer wg.Done(); s.stop() }()
	}
	wg.Wait()
}

// transport makes the connection of a server for c, and starts the
// process of a stdio server.
func (p *Pool) transport(sc ServerConfig, log *os.File, c *conn) (transport, *exec.Cmd, error) {
	if p.opts.Dial != nil {
		rwc, err := p.opts.Dial(sc)
		if err != nil {
			return nil, nil, err
		}
		return dialStream(c, rwc), nil, nil
	}
	if sc.Type == HTTP {
		client := &http.Client{Transport: headerTransport{headers: sc.Headers, next: http.DefaultTransport}}
		return dialHTTP(c, sc.URL, client, httpRetries), nil, nil
	}
	command := sc.Command
	if strings.ContainsRune(command, '/') && !filepath.IsAbs(command) && p.opts.Workdir != "" {
		// ./scripts/server.sh names a file of the workspace.
		command = filepath.Join(p.opts.Workdir, command)
	}
	path, err := exec.LookPath(command)
	if err != nil {
		return nil, nil, fmt.Errorf("command %q not found: %w", sc.Command, err)
	}
	cmd := exec.Command(path, sc.Args...)
	cmd.Dir = p.opts.Workdir
	env := os.Environ()
	if sc.FromWorkspace {
		// A server the workspace declares gets the variables of the
		// allow-list only (docs/protocol.md §2 "Endpoints and keys").
		env = p.cfg.Allow.Environ(env)
	}
	cmd.Env = serverEnv(env, sc.Env)
	cmd.Stderr = log
	cmd.SysProcAttr = serverProcAttr()
	t, err := startStdio(c, cmd)
	if err != nil {
		return nil, nil, err
	}
	return t, cmd, nil
}

// serverEnv is aci's environment without credentials (a server gets the
// secrets its entry names, not aci's API key), plus the entry's own.
func serverEnv(environ []string, extra map[string]string) []string {
	out := make([]string, 0, len(environ)+len(extra))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if _, own := extra[name]; own || sandbox.IsCredentialVar(name) {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range extra {
		out = append(out, k+"="+v)
	}
	return out
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}
