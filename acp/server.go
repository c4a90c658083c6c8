// Package acp lets editors drive aci over the Agent Client Protocol
// (docs/protocol.md §8): JSON-RPC 2.0 on stdin and stdout, one message a line.
// Each ACP session is an aci session (package session); its events become
// session/update notifications, its questions session/request_permission
// requests, and its file windows read and write through the editor where
// the editor offers it.
package acp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aci-dev/aci/internal/jsonrpc"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/mcp"
	"github.com/aci-dev/aci/tools/secrets"
	"github.com/aci-dev/aci/windows"
)

// Config is what Run needs.
type Config struct {
	Factory *session.Factory
	Version string           // aci's, for agentInfo
	Log     *log.Logger      // where the connection's troubles go; nil discards them
	Mode    windows.PermMode // the mode sessions start in (--permission-mode)
	Trust   bool             // the project's hooks and MCP servers run (--trust)
}

// server is one connection's state.
type server struct {
	cfg Config
	c   *conn
	log *log.Logger

	mu          sync.Mutex
	initialized bool
	client      clientCapabilities
	sessions    map[string]*acpSession
}

// acpSession is an aci session as the editor drives it.
type acpSession struct {
	id  string
	up  *updates
	cwd string

	mu           sync.Mutex
	s            *session.Session // sess(): a rewind continues in another
	prompting    bool
	cancel       context.CancelFunc
	cancelled    bool
	commandsSent []availableCommand // what the editor was told last (commands.go)
}

// sess is the aci session the editor's session is now.
func (a *acpSession) sess() *session.Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.s
}

// Run speaks ACP on in and out until in ends or ctx is done; then every
// session is closed (running turns cancelled, their commands ended).
func Run(ctx context.Context, in io.Reader, out io.Writer, cfg Config) error {
	logger := cfg.Log
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	srv := &server{cfg: cfg, log: logger, sessions: map[string]*acpSession{}}
	srv.c = newConn(out, logger)
	srv.c.redact = srv.secrets().Redact
	defer srv.closeAll()
	done := make(chan error, 1)
	go func() { done <- srv.c.serve(ctx, in, srv.handle) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		srv.closeAll()
		return nil
	}
}

// secrets are the set the factory's sessions keep out of what they show:
// what the editor must never be sent either.
func (srv *server) secrets() *secrets.Redactor {
	if srv.cfg.Factory == nil {
		return secrets.NewRedactor()
	}
	return srv.cfg.Factory.Config().Secrets
}

func (srv *server) closeAll() {
	srv.mu.Lock()
	list := make([]*acpSession, 0, len(srv.sessions))
	for id, s := range srv.sessions {
		list = append(list, s)
		delete(srv.sessions, id)
	}
	srv.mu.Unlock()
	for _, s := range list {
		s.sess().Close()
	}
}

// handle answers one request or notification.
func (srv *server) handle(ctx context.Context, method string, params json.RawMessage) (any, error) {
	srv.log.Printf("<- %s", method)
	switch method {
	case "initialize":
		return decoded(params, srv.initialize)
	case "authenticate":
		return nil, &rpcError{Code: jsonrpc.CodeInvalidParams, Message: "aci offers no authentication methods: its API key comes from its environment"}
	case "session/cancel":
		return decoded(params, func(p cancelParams) (any, error) {
			if s := srv.session(p.SessionID); s != nil {
				s.cancelPrompt()
			}
			return nil, nil
		})
	}
	if !srv.ready() {
		if isKnown(method) {
			return nil, &rpcError{Code: jsonrpc.CodeInvalidRequest, Message: "call initialize first"}
		}
	}
	switch method {
	case "session/new":
		return decoded(params, withCtx(ctx, srv.newSession))
	case "session/load":
		return decoded(params, withCtx(ctx, srv.loadSession))
	case "session/prompt":
		return decoded(params, withCtx(ctx, srv.prompt))
	case "session/set_mode":
		return decoded(params, srv.setMode)
	}
	return nil, &rpcError{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
}

func isKnown(method string) bool {
	switch method {
	case "session/new", "session/load", "session/prompt", "session/set_mode":
		return true
	}
	return false
}

// decode reads params strictly enough that a wrong shape is -32602.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return invalidParams("invalid params: missing")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return invalidParams("invalid params: %v", err)
	}
	return nil
}

// decoded decodes params into a P and answers with do's answer to it.
func decoded[P any](params json.RawMessage, do func(P) (any, error)) (any, error) {
	var p P
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	return do(p)
}

// withCtx is a method that takes a context, bound to ctx.
func withCtx[P any](ctx context.Context, do func(context.Context, P) (any, error)) func(P) (any, error) {
	return func(p P) (any, error) { return do(ctx, p) }
}

func (srv *server) ready() bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.initialized
}

func (srv *server) initialize(p initializeParams) (any, error) {
	if p.ProtocolVersion == nil {
		return nil, invalidParams("invalid params: protocolVersion is required")
	}
	srv.mu.Lock()
	srv.initialized, srv.client = true, p.ClientCapabilities
	srv.mu.Unlock()
	if p.ClientInfo != nil {
		srv.log.Printf("client %s %s (protocol %d; fs read %v, write %v)", p.ClientInfo.Name, p.ClientInfo.Version, *p.ProtocolVersion,
			p.ClientCapabilities.FS.ReadTextFile, p.ClientCapabilities.FS.WriteTextFile)
	}
	// Version negotiation: aci speaks 1; a client asking for another gets
	// 1 and decides whether it can go on.
	return initializeResult{
		ProtocolVersion: ProtocolVersion,
		AgentCapabilities: agentCapabilities{
			LoadSession:        true,
			PromptCapabilities: promptCapabilities{EmbeddedContext: true, Image: true},
			MCPCapabilities:    mcpCapabilities{HTTP: true},
		},
		AuthMethods: []any{},
		AgentInfo:   implementation{Name: "aci", Title: "aci", Version: srv.cfg.Version},
	}, nil
}

func (srv *server) session(id string) *acpSession {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.sessions[id]
}

func (srv *server) newSession(ctx context.Context, p newSessionParams) (any, error) {
	s, err := srv.open(ctx, p.Cwd, p.MCPServers, "")
	if err != nil {
		return nil, err
	}
	return followed{newSessionResult{SessionID: s.id, Modes: modeState(s.sess().Mode())}, s.sendCommands}, nil
}

// loadSession continues a stored session (made by any front end in that
// workspace) and replays it as updates before answering.
func (srv *server) loadSession(ctx context.Context, p loadSessionParams) (any, error) {
	if p.SessionID == "" {
		return nil, invalidParams("invalid params: sessionId is required")
	}
	if old := srv.session(p.SessionID); old != nil {
		return nil, &rpcError{Code: jsonrpc.CodeInvalidRequest, Message: "session " + p.SessionID + " is already loaded"}
	}
	s, err := srv.open(ctx, p.Cwd, p.MCPServers, p.SessionID)
	if err != nil {
		return nil, err
	}
	if stored := s.sess().Resumed(); stored != nil {
		s.replay(*stored)
	}
	return followed{struct {
		Modes *sessionModeState `json:"modes"`
	}{modeState(s.sess().Mode())}, s.sendCommands}, nil
}

// open builds an aci session for the editor: new, or resuming id.
func (srv *server) open(ctx context.Context, cwd string, servers []mcpServer, id string) (*acpSession, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return nil, invalidParams("invalid params: cwd must be an absolute path, got %q", cwd)
	}
	cwd = filepath.Clean(cwd)
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, invalidParams("invalid params: cwd %q is not a folder", cwd)
	}
	extra, err := mcpConfig(servers, srv.secrets())
	if err != nil {
		return nil, err
	}
	srv.mu.Lock()
	caps := srv.client
	srv.mu.Unlock()
	a := &acpSession{cwd: cwd}
	perm := &approver{c: srv.c, timeout: srv.cfg.Factory.Config().ApprovalTimeout, rejected: map[string]bool{}}
	files := &editorFiles{c: srv.c, read: caps.FS.ReadTextFile, write: caps.FS.WriteTextFile}
	// The updates are made from the session's events, redacted at their
	// source; a stored session's replay (replay) passes the redactor.
	a.up = newUpdates(func(u any) { srv.c.notify("session/update", sessionNotification{SessionID: a.id, Update: u}, false) },
		cwd, func(id string) (session.WindowInfo, bool) { return a.sess().LiveWindow(id) }, caps.Session != nil && caps.Session.Notices != nil)
	a.up.secrets = srv.secrets()
	perm.running = a.up.runningCall
	opt := session.Options{
		Workdir:  cwd,
		Approver: perm,
		Mode:     srv.cfg.Mode,
		Trust:    srv.cfg.Trust,
		Events:   a.up.event,
		MCP:      extra,
		Say:      func(line string) { srv.log.Printf("session: %s", line) },
		Env: func(env *windows.Env) {
			if files.read || files.write {
				env.Files = files
			}
		},
	}
	if id != "" {
		a.s, err = srv.cfg.Factory.Open(ctx, id, opt)
	} else {
		a.s, err = srv.cfg.Factory.New(ctx, opt)
	}
	if err != nil {
		if errors.Is(err, session.ErrUsage) {
			return nil, &rpcError{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		return nil, err
	}
	a.id = a.s.ID()
	if a.id == "" {
		// No transcript could be written: the session lives only here.
		a.id = "mem-" + randomHex()
	}
	perm.sessionID, files.sessionID = a.id, a.id
	srv.mu.Lock()
	srv.sessions[a.id] = a
	srv.mu.Unlock()
	srv.log.Printf("session %s in %s", a.id, cwd)
	return a, nil
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// mcpConfig turns the editor's MCP servers into aci's configuration; they
// join the workspace's and the user's.
func mcpConfig(servers []mcpServer, set *secrets.Redactor) (map[string]mcp.ServerConfig, error) {
	if len(servers) == 0 {
		return nil, nil
	}
	out := map[string]mcp.ServerConfig{}
	for _, s := range servers {
		if s.Name == "" {
			return nil, invalidParams("invalid params: an MCP server without a name")
		}
		sc := mcp.ServerConfig{Name: s.Name, Source: "the editor (ACP session)"}
		switch s.Type {
		case "", "stdio":
			if s.Command == "" {
				return nil, invalidParams("invalid params: MCP server %q has no command", s.Name)
			}
			sc.Type, sc.Command, sc.Args = mcp.Stdio, s.Command, s.Args
			sc.Env = map[string]string{}
			for _, e := range s.Env {
				sc.Env[e.Name] = e.Value
			}
		case "http":
			if s.URL == "" {
				return nil, invalidParams("invalid params: MCP server %q has no url", s.Name)
			}
			sc.Type, sc.URL = mcp.HTTP, s.URL
			sc.Headers = map[string]string{}
			for _, h := range s.Headers {
				sc.Headers[h.Name] = h.Value
			}
		default:
			return nil, invalidParams("invalid params: MCP server %q: transport %q is not supported (aci speaks stdio and http)", s.Name, s.Type)
		}
		out[s.Name] = sc
	}
	// Credentials handed to the servers stay out of what the model and the
	// editor see.
	set.Add(mcp.Config{Servers: out}.Secrets()...)
	return out, nil
}

// prompt runs one turn and answers with its stop reason.
func (srv *server) prompt(ctx context.Context, p promptParams) (any, error) {
	s := srv.session(p.SessionID)
	if s == nil {
		return nil, invalidParams("invalid params: no session %q (session/new or session/load first)", p.SessionID)
	}
	question, attach, err := questionOf(p.Prompt, s.cwd)
	if err != nil {
		return nil, err
	}
	imgs, err := imagesOf(p.Prompt)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	if s.prompting {
		s.mu.Unlock()
		return nil, &rpcError{Code: jsonrpc.CodeInvalidRequest, Message: "a prompt is already running in this session"}
	}
	s.prompting, s.cancel, s.cancelled = true, cancel, false
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.prompting, s.cancel = false, nil
		s.mu.Unlock()
	}()
	if o, arg, ok := opOf(question); ok && len(attach) == 0 && len(imgs) == 0 {
		return s.op(ctx, o, arg)
	}
	ss := s.sess()
	for _, path := range attach {
		// A mentioned file is opened as a window: the model sees it live.
		ss.OpenFile(ctx, path)
	}
	start := time.Now()
	ss.AttachImages(imgs)
	res, err := ss.Ask(ctx, question)
	if err == nil && res.Outcome == session.Answered {
		var accepted bool
		var carried session.Result
		if accepted, carried, err = s.offerPlan(ctx, srv.c); accepted && err == nil {
			res = carried
		}
	}
	s.sendCommands()
	srv.log.Printf("session %s: prompt ended after %s: %s %s", s.id, time.Since(start).Round(time.Millisecond), res.Outcome, res.Error)
	if errors.Is(err, session.ErrUsage) { // a command file that cannot run
		return nil, invalidParams("%v", err)
	}
	if err != nil { // no turn began
		return nil, &rpcError{Code: jsonrpc.CodeInvalidRequest, Message: err.Error()}
	}
	s.mu.Lock()
	cancelled := s.cancelled
	s.mu.Unlock()
	if cancelled {
		// The editor cancelled: ACP wants "cancelled", however the turn ended.
		return promptResult{StopReason: stopCancel}, nil
	}
	return stopOf(res)
}

// stopOf maps how the session says the turn ended to ACP's stop reasons;
// a failure is an error with the result's one line.
func stopOf(r session.Result) (any, error) {
	switch {
	case r.Outcome == session.Answered:
		return promptResult{StopReason: stopEndTurn}, nil
	case r.Outcome == session.Interrupted:
		return promptResult{StopReason: stopCancel}, nil
	case r.Outcome == session.LimitReached:
		// ACP has one stop reason for every limit; a notice says which
		// (updates.go).
		return promptResult{StopReason: stopMaxTurns}, nil
	case r.Cause == session.CauseRefused:
		return promptResult{StopReason: stopRefusal}, nil
	}
	return nil, &rpcError{Code: jsonrpc.CodeInternalError, Message: r.Error}
}

// cancelPrompt ends the running prompt, if any: its model request, its
// command, and a question waiting for the editor.
func (a *acpSession) cancelPrompt() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		a.cancelled = true
		a.cancel()
	}
}
