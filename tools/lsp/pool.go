package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
)

// Options set up a session's servers.
type Options struct {
	Workdir string
	// Servers are the settings' `lsp` entries (settings.LoadLSP).
	Servers map[string]settings.LSPServer
	// Wait bounds how long a change waits for its diagnostics (2.5 s);
	// later ones show in the next rendering.
	Wait time.Duration
	// StartTimeout bounds a server's answer to initialize (15 s): one that
	// takes longer is left off for the session.
	StartTimeout time.Duration
	// Env is added to the servers' environment ("NAME=value"), over
	// aci's own.
	Env []string
	// Trusted says the person trusts the folder: a server and its pieces
	// may then come from the workspace (launch.go).
	Trusted bool
	// Notice tells the person one line about a server that does not start
	// or stops (once per line; every session sharing the pool is told).
	Notice func(string) `json:"-"`
}

// Pool holds a session's language servers, one per language, started
// when a file of that language is first synced.
type Pool struct {
	opt     Options
	langs   []Language
	root    string
	mu      sync.Mutex
	servers map[string]*server // by language; nil entry: not installed
	closed  bool
	// key and refs, for a pool shared by the sessions of one workspace
	// (Shared): the last Close stops the servers.
	key  string
	refs int
	// stamps are the workspace's files as the last Refresh saw them
	// (watch.go); watchOff: too many to keep.
	stamps   map[string]stamp
	watchOff bool
	// plan counts the users in plan mode: while any is, servers see the
	// workspace read-only (restarted on a change).
	plan    int
	notices []func(string)
	told    map[string]bool
	// watcher keeps the changed files by notification (notify.go).
	watcher     *watcher
	noNotifyWhy string // why changes are found by scans ("": notification)
	// held are the windows showing each file before its server started.
	held map[string]int
}

// shared are the pools of the process's sessions, by workspace and
// options: one server per language and workspace, however many sessions.
var shared = struct {
	sync.Mutex
	pools map[string]*Pool
}{pools: map[string]*Pool{}}

// Shared is the pool of opt's workspace that the process's sessions share
// (made when the first asks); each caller closes it once. Nil when
// ACI_LSP=off.
func Shared(opt Options) *Pool {
	if Off() {
		return nil
	}
	key := fmt.Sprintf("%s\x00%q\x00%q\x00%s\x00%s\x00%q\x00%t", sandbox.WorkspaceRoot(opt.Workdir), opt.Workdir,
		opt.Servers, opt.Wait, opt.StartTimeout, opt.Env, opt.Trusted)
	shared.Lock()
	defer shared.Unlock()
	p := shared.pools[key]
	if p == nil {
		p = NewPool(opt)
		p.key = key
		shared.pools[key] = p
	} else if opt.Notice != nil {
		p.mu.Lock()
		p.notices = append(p.notices, opt.Notice)
		p.mu.Unlock()
	}
	p.refs++
	return p
}

// Off says whether ACI_LSP turns diagnostics off.
func Off() bool {
	switch os.Getenv("ACI_LSP") {
	case "off", "0", "false", "no":
		return true
	}
	return false
}

// NewPool makes an empty pool; nil when ACI_LSP=off.
func NewPool(opt Options) *Pool {
	if Off() {
		return nil
	}
	if opt.Wait <= 0 {
		opt.Wait = 2500 * time.Millisecond
	}
	if opt.StartTimeout <= 0 {
		opt.StartTimeout = 15 * time.Second
	}
	p := &Pool{opt: opt, langs: languages(opt.Servers), root: sandbox.WorkspaceRoot(opt.Workdir), servers: map[string]*server{},
		told: map[string]bool{}, held: map[string]int{}}
	if opt.Notice != nil {
		p.notices = []func(string){opt.Notice}
	}
	return p
}

// tell gives the person a line about the servers, once.
func (p *Pool) tell(line string) {
	p.mu.Lock()
	if p.told[line] {
		p.mu.Unlock()
		return
	}
	p.told[line] = true
	fns := append([]func(string){}, p.notices...)
	p.mu.Unlock()
	for _, f := range fns {
		f(line)
	}
}

// Plan tells the pool one of its users entered (true) or left (false)
// plan mode: while any user is in it, the servers see the workspace
// read-only, and they are restarted when that changes.
func (p *Pool) Plan(on bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	was := p.plan > 0
	if on {
		p.plan++
	} else if p.plan > 0 {
		p.plan--
	}
	now := p.plan > 0
	var restart []*server
	if was != now {
		for _, s := range p.servers {
			if s != nil {
				restart = append(restart, s)
			}
		}
	}
	p.mu.Unlock()
	for _, s := range restart {
		s.restart()
	}
}

// readOnly says whether servers start with the workspace read-only.
func (p *Pool) readOnly() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.plan > 0
}

// served is path's language when the pool (nil: none) has one for it.
func (p *Pool) served(path string) (Language, bool) {
	if p == nil {
		return Language{}, false
	}
	return languageOf(p.langs, path)
}

// server is path's language's server, started when first asked for;
// nil when the language has none installed, or path is outside the
// workspace (the server would only say no build contains it).
func (p *Pool) server(path string) *server {
	lang, ok := p.served(path)
	if !ok || !p.inWorkspace(path) {
		return nil
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	s, seen := p.servers[lang.Name]
	p.mu.Unlock()
	if seen {
		return s
	}
	l, why, ok := p.launchFor(lang)
	p.mu.Lock()
	if s, seen = p.servers[lang.Name]; seen || p.closed {
		p.mu.Unlock()
		return s
	}
	switch {
	case ok:
		s = newServer(lang, l, p)
	case why != "":
		s = offServer(lang, l, why)
	}
	p.servers[lang.Name] = s
	p.adoptHeldLocked(lang, s)
	p.mu.Unlock()
	if s != nil && s.off {
		p.tell(s.note)
	}
	return s
}

// Pending is the command line of path's server when it would start now
// (not started yet, and installed where the pool may take it from).
func (p *Pool) Pending(path string) ([]string, bool) {
	lang, ok := p.served(path)
	if !ok || !p.inWorkspace(path) {
		return nil, false
	}
	p.mu.Lock()
	_, seen := p.servers[lang.Name]
	closed := p.closed
	p.mu.Unlock()
	if seen || closed {
		return nil, false
	}
	l, _, ok := p.launchFor(lang)
	return l.argv, ok
}

// Decline leaves path's language without a server for the pool's life:
// the person said no to starting it (why, for the rendering).
func (p *Pool) Decline(path, why string) {
	lang, ok := p.served(path)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, seen := p.servers[lang.Name]; !seen {
		s := offServer(lang, launch{}, "not started: "+why)
		p.servers[lang.Name] = s
		p.adoptHeldLocked(lang, s)
	}
}

// Sync gives path's server the file's text and waits, at most the pool's
// Wait (and ctx), for its diagnostics. A file of no served language, or
// with the same text as last time, returns at once.
func (p *Pool) Sync(ctx context.Context, path, text string) {
	s := p.server(path)
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, p.opt.Wait)
	defer cancel()
	s.sync(ctx, path, text)
}

// Hold tells path's server that one more window shows the file: it stays
// open in the server until each has let go (Forget). A server not started
// yet hears of it when it starts (a window's first sync starts it, after
// the person is asked in ask mode).
func (p *Pool) Hold(path string) {
	lang, ok := p.served(path)
	if !ok || !p.inWorkspace(path) {
		return
	}
	p.mu.Lock()
	s, seen := p.servers[lang.Name]
	if !seen {
		p.held[path]++
	}
	p.mu.Unlock()
	if s != nil {
		s.hold(path)
	}
}

// Forget tells path's server one window fewer shows the file.
func (p *Pool) Forget(path string) {
	lang, ok := p.served(path)
	if !ok {
		return
	}
	p.mu.Lock()
	s, seen := p.servers[lang.Name]
	if !seen && p.held[path] > 0 {
		if p.held[path]--; p.held[path] == 0 {
			delete(p.held, path)
		}
	}
	p.mu.Unlock()
	if s != nil {
		s.forget(path)
	}
}

// adoptHeldLocked gives a new server the holds of its language's files
// made before it started (p.mu held).
func (p *Pool) adoptHeldLocked(lang Language, s *server) {
	for path, n := range p.held {
		if l, ok := languageOf(p.langs, path); !ok || l.Name != lang.Name {
			continue
		}
		delete(p.held, path)
		if s != nil {
			s.mu.Lock()
			s.holds[fileURI(path)] += n
			s.mu.Unlock()
		}
	}
}

// Report is what a file window shows of its file's diagnostics.
type Report struct {
	Server string // the server's program name
	List   []Diagnostic
	// Known says the server published for the file (an empty List then
	// means no errors or warnings).
	Known bool
	// Note is the one line a server's trouble costs.
	Note string
}

// Diagnostics is path's report; ok is false when no server serves it.
func (p *Pool) Diagnostics(path string) (Report, bool) {
	lang, ok := p.served(path)
	if !ok {
		return Report{}, false
	}
	p.mu.Lock()
	s := p.servers[lang.Name]
	p.mu.Unlock()
	if s == nil {
		return Report{}, false
	}
	list, known, note := s.diagnostics(path)
	return Report{Server: s.name(), List: list, Known: known, Note: note}, true
}

// Close stops every server (of a shared pool, once its last user closes
// it).
func (p *Pool) Close() {
	if p == nil {
		return
	}
	if p.key != "" {
		shared.Lock()
		if p.refs--; p.refs > 0 {
			shared.Unlock()
			return
		}
		delete(shared.pools, p.key)
		shared.Unlock()
	}
	p.mu.Lock()
	p.closed = true
	servers := p.servers
	p.servers = map[string]*server{}
	w := p.watcher
	p.watcher = nil
	p.mu.Unlock()
	if w != nil {
		w.close()
	}
	var wg sync.WaitGroup
	for _, s := range servers {
		if s != nil {
			wg.Add(1)
			go func() { defer wg.Done(); s.stop() }()
		}
	}
	wg.Wait()
}

// Serves says whether path's language has an installed server (which it
// starts, when not started yet, unless it was turned off).
func (p *Pool) Serves(path string) bool {
	return p.server(path) != nil
}

// inWorkspace says whether path is in the pool's workspace, as given or
// with symlinks resolved.
func (p *Pool) inWorkspace(path string) bool {
	for _, root := range []string{p.root, p.opt.Workdir} {
		if rel, err := filepath.Rel(root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil && real != filepath.Dir(path) {
		return p.inWorkspace(filepath.Join(real, filepath.Base(path)))
	}
	return false
}
