package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Server is one configured server of a pool. It is (re)started on demand:
// a server that crashed starts again at the next call.
type Server struct {
	pool *Pool
	cfg  ServerConfig
	refs int // guarded by pool.mu

	mu  sync.Mutex // held while starting and stopping
	cur *run       // the running (or last) session; nil before the first start

	// The lists have their own lock: a window renders them while a start
	// or a refresh talks to the server.
	listMu       sync.Mutex
	tools        []*Tool
	resources    []*Resource
	templates    []*ResourceTemplate
	instructions string
	version      int // counts list changes, for renderings cached on it
}

// ListVersion changes whenever the lists do.
func (s *Server) ListVersion() int {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	return s.version
}

// Config is the server's configuration entry.
func (s *Server) Config() ServerConfig { return s.cfg }

// LogPath is the file that receives the server's stderr.
func (s *Server) LogPath() string { return filepath.Join(s.pool.opts.LogDir, s.cfg.Name+".log") }

// Pid is the running server's process id; 0 for a remote server or one
// not running.
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.runningLocked() || s.cur.cmd == nil || s.cur.cmd.Process == nil {
		return 0
	}
	return s.cur.cmd.Process.Pid
}

// Tools lists the server's tools as last fetched.
func (s *Server) Tools() []*Tool {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	return s.tools
}

// Templates lists the server's resource templates (URIs with {parameters})
// as last fetched.
func (s *Server) Templates() []*ResourceTemplate {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	return s.templates
}

// Instructions is what the server says about using it, if anything.
func (s *Server) Instructions() string {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	return s.instructions
}

// Resources lists the server's resources as last fetched.
func (s *Server) Resources() []*Resource {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	return s.resources
}

// Tool returns the tool named name, or nil.
func (s *Server) Tool(name string) *Tool {
	for _, t := range s.Tools() {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// run is one start of the server.
type run struct {
	conn    *conn
	cmd     *exec.Cmd // nil for a remote server
	log     *os.File
	logFrom int64         // where this run's log starts
	done    chan struct{} // closed once the session has ended
	note    string        // how it ended; read after done
}

func (r *run) ended() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// runningLocked reports whether a session is up; s.mu held.
func (s *Server) runningLocked() bool {
	return s.cur != nil && !s.cur.ended() && s.cur.conn.ended() == nil
}

// ensure starts the server unless it runs.
func (s *Server) ensure(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runningLocked() {
		return nil
	}
	s.cleanupLocked()
	return s.startLocked(ctx)
}

func (s *Server) startLocked(ctx context.Context) error {
	if v := s.pool.opts.Verify; v != nil {
		if err := v(s.cfg); err != nil {
			return fmt.Errorf("MCP server %s not started: %w", s.cfg.Name, err)
		}
	}
	if err := os.MkdirAll(s.pool.opts.LogDir, 0o700); err != nil {
		return fmt.Errorf("MCP server %s: log folder: %w", s.cfg.Name, err)
	}
	log, err := os.OpenFile(s.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("MCP server %s: log: %w", s.cfg.Name, err)
	}
	fmt.Fprintf(log, "=== aci starts %s (%s) at %s\n", s.cfg.Name, s.cfg.Describe(), time.Now().Format(time.RFC3339))
	logStart, _ := log.Seek(0, 2)
	c := newConn(func() { go s.refresh() }, func(line string) { fmt.Fprintln(log, line) })
	t, cmd, err := s.pool.transport(s.cfg, log, c)
	if err != nil {
		log.Close()
		return fmt.Errorf("MCP server %s did not start: %w", s.cfg.Name, err)
	}
	c.t = t
	t.start()
	sctx, cancel := context.WithTimeout(ctx, s.pool.opts.StartTimeout)
	defer cancel()
	if err := c.initialize(sctx, s.pool.opts.Version); err != nil {
		c.close() // stops the process and its group
		why := err.Error()
		switch {
		case ctx.Err() != nil:
			why = "canceled"
		case sctx.Err() != nil:
			why = fmt.Sprintf("no answer to the handshake within %s", seconds(s.pool.opts.StartTimeout))
		}
		msg := fmt.Sprintf("MCP server %s (%s) did not start: %s", s.cfg.Name, s.cfg.Describe(), why)
		log.Close()
		if cmd != nil {
			msg += logTail(s.LogPath(), logStart)
		}
		return errors.New(msg)
	}
	s.cur = &run{conn: c, cmd: cmd, log: log, logFrom: logStart, done: make(chan struct{})}
	go s.cur.watch()
	if err := s.list(sctx, c); err != nil {
		s.stopLocked()
		return fmt.Errorf("MCP server %s started but could not list its tools: %w", s.cfg.Name, err)
	}
	return nil
}

// watch notes when the connection ends (the server exited, the connection
// broke or aci closed it), and closes it: a stdio process is then reaped
// and its exit status known.
func (r *run) watch() {
	<-r.conn.done
	err := r.conn.ended()
	r.conn.close()
	r.note = exitNote(r.cmd, err)
	close(r.done)
}

func exitNote(cmd *exec.Cmd, err error) string {
	if cmd != nil && cmd.ProcessState != nil {
		return cmd.ProcessState.String()
	}
	if err != nil {
		return err.Error()
	}
	return "connection closed"
}

// list fetches the tools and, if the server has them, the resources.
func (s *Server) list(ctx context.Context, c *conn) error {
	tools, err := c.list(ctx, "tools/list")
	if err != nil {
		return err
	}
	// Resources are a courtesy: the tools work without them.
	var resources, templates listResult
	c.mu.Lock()
	init := c.init
	c.mu.Unlock()
	if init.Capabilities.Resources != nil {
		resources, _ = c.list(ctx, "resources/list")
		templates, _ = c.list(ctx, "resources/templates/list")
	}
	s.listMu.Lock()
	s.tools, s.resources, s.templates, s.instructions = tools.Tools, resources.Resources, templates.ResourceTemplates, init.Instructions
	s.version++
	s.listMu.Unlock()
	return nil
}

// refresh refetches the lists after the server said they changed.
func (s *Server) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), s.pool.opts.CallTimeout)
	defer cancel()
	s.mu.Lock()
	r := s.cur
	running := s.runningLocked()
	s.mu.Unlock()
	if running {
		_ = s.list(ctx, r.conn)
	}
}

// stop ends the session and the process with its children.
func (s *Server) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
}

func (s *Server) stopLocked() {
	if s.cur != nil {
		s.cur.conn.close() // closes its input, then SIGTERM, then SIGKILL
		<-s.cur.done
	}
	s.cleanupLocked()
}

// cleanupLocked closes an ended run's log (closing its connection ended
// what was left of its process group).
func (s *Server) cleanupLocked() {
	if s.cur == nil {
		return
	}
	<-s.cur.done
	s.cur.log.Close()
	s.cur = nil
}

// logTail is the end of what the server wrote to its log since from, for
// an error message.
func logTail(path string, from int64) string {
	data, err := os.ReadFile(path)
	if err != nil || int64(len(data)) <= from {
		return fmt.Sprintf(" (nothing in its log %s)", path)
	}
	text := strings.TrimSpace(string(data[from:]))
	lines := strings.Split(text, "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	text = strings.Join(lines, "\n")
	if len(text) > 1500 {
		text = "…" + text[len(text)-1500:]
	}
	return fmt.Sprintf("; last lines of its log %s:\n%s", path, text)
}
