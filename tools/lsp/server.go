package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/tools/sandbox"
)

// slowAfter is how many changes in a row a server may miss the wait for
// before changes stop waiting for it.
const slowAfter = 3

// doc is a file the server was told of.
type doc struct {
	text    string
	version int // of text
	sent    int // the version the server has; 0: not opened
	pubs    int // publishes received
	pubVer  int // the version the last publish was for; -1 unknown
	diags   []Diagnostic
	langID  string
	hasDiag bool
	sentAt  time.Time // when the server was given the text
}

// process is one run of a server.
type process struct {
	cmd     *exec.Cmd
	conn    *conn
	stdin   interface{ Close() error }
	release func() []string
	exited  chan struct{}
	stderr  *tail
}

// server is one language's server for one workspace, restarted once
// after a crash.
type server struct {
	lang Language
	argv []string
	l    launch
	pool *Pool
	root string
	opt  *Options
	// gen counts the starts: a start overtaken by a restart (a change of
	// mode) ends itself.
	gen   int
	mu    sync.Mutex
	docs  map[string]*doc // by URI
	holds map[string]int  // by URI: the windows showing the document
	ready bool            // initialized: documents can be sent
	proc  *process
	// starting is the process being initialized.
	starting *process
	// note is the one line the server's trouble costs ("" when none).
	note     string
	off      bool // given up on for the session
	planOff  bool // off only because plan mode cannot hold here: leaving it starts the server
	restarts int
	closing  bool
	// late counts the changes in a row whose diagnostics came after the
	// wait; after slowAfter of them the server is slow: changes no longer
	// wait for it, until it answers within the wait again.
	late int
	slow bool
	// changed is closed (and replaced) whenever a publish arrives or the
	// server's state changes: waiters look again.
	changed chan struct{}
}

func newServer(lang Language, l launch, p *Pool) *server {
	s := &server{lang: lang, argv: l.argv, l: l, pool: p, root: p.root, opt: &p.opt, docs: map[string]*doc{}, holds: map[string]int{},
		changed: make(chan struct{})}
	go s.run(0)
	return s
}

// wakeLocked tells the waiters something changed.
func (s *server) wakeLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *server) name() string { return filepath.Base(s.argv[0]) }

// run starts the server and initializes it, within the start bound.
func (s *server) run(gen int) {
	p, err := s.start()
	if err != nil {
		s.giveUp(fmt.Sprintf("%s could not start: %v", s.name(), err))
		return
	}
	if !s.lockFor(gen, p) {
		return
	}
	s.starting = p
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), s.opt.StartTimeout)
	err = p.conn.call(ctx, "initialize", s.initParams(), nil)
	cancel()
	if err == nil {
		err = p.conn.send("initialized", struct{}{})
	}
	if !s.lockFor(gen, p) {
		return
	}
	s.starting = nil
	if err != nil {
		s.mu.Unlock()
		why := fmt.Sprintf("did not answer initialize within %s", s.opt.StartTimeout)
		if !errors.Is(err, context.DeadlineExceeded) {
			why = "failed to initialize: " + err.Error()
			select { // a server that closed its output is most likely ending
			case <-p.exited:
				why = "stopped before it was ready (" + p.exitNote() + ")"
			case <-time.After(time.Second):
			}
		}
		p.stop()
		s.giveUp(s.name() + " " + why)
		return
	}
	s.proc, s.ready = p, true
	for uri, d := range s.docs {
		s.sendLocked(uri, d)
	}
	s.wakeLocked()
	s.mu.Unlock()
	go s.watch(p)
}

// giveUp turns the server off for the session with one line, which the
// person is told too.
func (s *server) giveUp(note string) {
	s.mu.Lock()
	s.off, s.ready, s.proc = true, false, nil
	s.note = note + "; no diagnostics for " + s.lang.Name + " files this session"
	line := s.note
	s.wakeLocked()
	s.mu.Unlock()
	if s.pool != nil {
		s.pool.tell(line)
	}
}

// watch restarts a server that ends on its own, once.
func (s *server) watch(p *process) {
	<-p.exited
	s.mu.Lock()
	if s.closing || s.proc != p {
		s.mu.Unlock()
		return
	}
	why := p.exitNote()
	if s.restarts >= 1 {
		s.mu.Unlock()
		s.giveUp(s.name() + " stopped again (" + why + ")")
		return
	}
	s.restarts++
	s.ready, s.proc = false, nil
	s.note = s.name() + " stopped (" + why + "); restarted"
	for _, d := range s.docs {
		d.sent = 0
	}
	gen := s.gen
	s.wakeLocked()
	s.mu.Unlock()
	s.run(gen)
}

func (s *server) initParams() map[string]any {
	params := map[string]any{
		// No process id: in the sandbox's pid namespace aci's is not
		// there, and servers that watch it (pyright) would exit.
		"processId":  nil,
		"clientInfo": map[string]any{"name": "aci"},
		"rootUri":    fileURI(s.root),
		"workspaceFolders": []map[string]any{
			{"uri": fileURI(s.root), "name": filepath.Base(s.root)},
		},
		"capabilities": map[string]any{
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true},
				"publishDiagnostics": map[string]any{"versionSupport": true},
			},
			"workspace": map[string]any{"workspaceFolders": true, "configuration": true,
				"didChangeWatchedFiles": map[string]any{"dynamicRegistration": false}},
		},
	}
	if s.l.init != nil {
		params["initializationOptions"] = s.l.init
	}
	return params
}

// start runs the server's process contained like a command.
func (s *server) start() (*process, error) {
	// Read-only while a user is in plan mode; the program's own folders
	// below /tmp shown to it (its /tmp is the session's).
	g := sandbox.Grant{ReadOnlyWorkspace: s.pool.readOnly(), Machine: s.l.machine}
	sb := sandbox.For(s.opt.Workdir)
	if g.ReadOnlyWorkspace && !sb.ReadOnlyHolds() {
		s.mu.Lock()
		s.planOff = true
		s.mu.Unlock()
		return nil, errors.New("in plan mode it must see the workspace read-only, and commands are not contained so here")
	}
	argv, release, err := sb.CommandGranted(s.argv, s.root, nil, g)
	if err != nil {
		return nil, fmt.Errorf("contain: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.root
	cmd.Env = append(append(serverEnv(), s.l.env...), s.opt.Env...)
	cmd.SysProcAttr = procAttr()
	p := &process{cmd: cmd, release: release, exited: make(chan struct{}), stderr: &tail{}}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		release()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		release()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		release()
		return nil, err
	}
	p.stdin = stdin
	p.conn = newConn(stdout, stdin, s.notified)
	p.conn.setSettings(s.l.settings)
	go func() {
		_ = cmd.Wait()
		p.conn.close()
		release()
		close(p.exited)
	}()
	return p, nil
}

// serverEnv is aci's environment without credentials.
func serverEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !sandbox.IsCredentialVar(name) {
			out = append(out, kv)
		}
	}
	return out
}

// notified takes a server's notification.
func (s *server) notified(method string, params json.RawMessage) {
	if method != "textDocument/publishDiagnostics" {
		return
	}
	p, list, err := parsePublish(params)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// The server may spell the URI its own way (escapes, case of the
	// hex digits): the path it names is what counts.
	uri := p.URI
	if path := uriPath(uri); path != "" {
		uri = fileURI(path)
	}
	d := s.docs[uri]
	if d == nil {
		return
	}
	if p.Version != nil && *p.Version < d.pubVer {
		return // late news of an older text
	}
	current := p.Version == nil || *p.Version >= d.sent
	if current && !d.sentAt.IsZero() && time.Since(d.sentAt) <= s.opt.Wait {
		s.late, s.slow = 0, false
	}
	d.pubs++
	d.pubVer = -1
	if p.Version != nil {
		d.pubVer = *p.Version
	}
	d.diags, d.hasDiag = list, true
	s.wakeLocked()
}

// sendLocked brings the server's copy of a document up to date.
func (s *server) sendLocked(uri string, d *doc) {
	if d.sent == d.version || s.proc == nil {
		return
	}
	c := s.proc.conn
	if d.sent == 0 {
		_ = c.send("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": d.langID, "version": d.version, "text": d.text}})
	} else {
		_ = c.send("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": d.version},
			"contentChanges": []map[string]any{{"text": d.text}}})
		_ = c.send("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
	d.sent, d.sentAt = d.version, time.Now()
}

// sync gives the server path's text (when it changed) and waits, until
// ctx ends, for diagnostics of that text.
func (s *server) sync(ctx context.Context, path, text string) {
	uri := fileURI(path)
	s.mu.Lock()
	d := s.docs[uri]
	if d == nil {
		d = &doc{pubVer: -1, langID: s.lang.languageID(path)}
		s.docs[uri] = d
	}
	if d.version > 0 && d.text == text {
		s.mu.Unlock()
		return
	}
	d.text = text
	d.version++
	want, pubs := d.version, d.pubs
	// Only a change sent to a ready server times it: the first load of a
	// workspace may take long without the server being slow.
	timed := s.ready
	if s.ready {
		s.sendLocked(uri, d)
	}
	if timed && s.slow {
		s.mu.Unlock()
		return
	}
	for {
		if s.off || (d.pubs > pubs && (d.pubVer < 0 || d.pubVer >= want)) {
			s.mu.Unlock()
			return
		}
		if !s.awaitChangeLocked(ctx) {
			if timed && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				s.mu.Lock()
				if s.late++; s.late >= slowAfter {
					s.slow = true
				}
				s.mu.Unlock()
			}
			return
		}
	}
}

// awaitChangeLocked waits, s.mu held, until something changes (then s.mu
// is held again) or ctx ends (reported false, s.mu not held).
func (s *server) awaitChangeLocked(ctx context.Context) bool {
	ch := s.changed
	s.mu.Unlock()
	select {
	case <-ctx.Done():
		return false
	case <-ch:
	}
	s.mu.Lock()
	return true
}

// hold counts one more window showing path.
func (s *server) hold(path string) {
	s.mu.Lock()
	s.holds[fileURI(path)]++
	s.mu.Unlock()
}

// forget counts one window fewer showing path, and closes the document
// when none is left.
func (s *server) forget(path string) {
	uri := fileURI(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holds[uri]--; s.holds[uri] > 0 {
		return
	}
	delete(s.holds, uri)
	d := s.docs[uri]
	delete(s.docs, uri)
	if d != nil && d.sent > 0 && s.ready {
		_ = s.proc.conn.send("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
}

// diagnostics are path's latest diagnostics, whether any were published,
// and the server's note.
func (s *server) diagnostics(path string) ([]Diagnostic, bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[fileURI(path)]
	note := s.note
	if note == "" && s.slow {
		note = fmt.Sprintf("%s is slow (no diagnostics within %s of a change); they show once it publishes them", s.name(), s.opt.Wait)
	}
	if d == nil || s.off {
		return nil, false, note
	}
	return d.diags, d.hasDiag, note
}

// stop shuts the server down: shutdown and exit, then its processes are
// ended if they linger.
func (s *server) stop() {
	s.mu.Lock()
	s.closing = true
	p, starting := s.proc, s.starting
	s.proc, s.ready = nil, false
	s.wakeLocked()
	s.mu.Unlock()
	p.stop()
	starting.stop()
}

// stop asks the process to end, and ends it after a short while. A
// process not started (nil) has nothing to stop.
func (p *process) stop() {
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	select {
	case <-p.exited:
		return
	default:
	}
	if p.conn.call(ctx, "shutdown", nil, nil) == nil {
		_ = p.conn.send("exit", nil)
	}
	select {
	case <-p.exited:
		return
	case <-time.After(time.Second):
	}
	_ = p.stdin.Close()
	killGroup(p.cmd)
	<-p.exited
}

// exitNote says how the process ended, with its last line of stderr.
func (p *process) exitNote() string {
	why := "exited"
	if st := p.cmd.ProcessState; st != nil {
		why = st.String()
	}
	if line := p.stderr.last(); line != "" {
		why += ": " + line
	}
	return why
}

// tail keeps the end of a server's stderr, for the note on a crash.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 4096 {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-2048:]...)
	}
	return len(b), nil
}

func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return oneLine(lines[len(lines)-1])
}
