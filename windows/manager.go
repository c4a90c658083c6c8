package windows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aci-dev/aci/guard"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/lsp"
	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/rules"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/secrets"
)

// Env is what the apps share: where they work, how much output they keep,
// and whom they ask.
type Env struct {
	Workdir     string
	OutputLimit int
	Approver    Approver
	// Journal, when set, is told before a window changes a file, so the
	// change can be undone.
	Journal Journal
	// Guard judges commands and file access; NewManager builds one from the
	// process's environment when it is nil.
	Guard *guard.Guard
	// Network is the proxy contained commands reach the network through;
	// NewManager gives the built-in hosts when it is nil.
	Network *netproxy.Proxy
	// Files, when set, is where file windows read and write text instead
	// of the disk (an editor's buffers); see Files.
	Files Files
	// Live, when set, is given a running command's output as it arrives:
	// it returns where a command starting in window windowID writes (taskID
	// is a background task's id, "" for a command run in the foreground),
	// or nil. The writer must never block.
	Live func(windowID, taskID string) io.Writer
	// Mode is the session's permission mode (mode.go); nil is default.
	Mode *ModeSwitch
	// Rules allow or deny actions without asking (rules.go); nil: none.
	Rules *rules.Set
	// Diagnostics, when set, are the language servers file windows show
	// their file's diagnostics from; DiagnosticsNote tells the person, in
	// one line, what an edit left (file_diag.go).
	Diagnostics     *lsp.Pool
	DiagnosticsNote func(string)
	// Secrets are the values kept out of what the apps show and of
	// commands' environments: the session's set, which MCP servers' tokens
	// join; NewManager makes an empty one when it is nil.
	Secrets *secrets.Redactor
	// URLSecrets are more values a fetched URL must not carry without
	// asking: what .env set (nil: none).
	URLSecrets *secrets.Redactor

	// openWindow opens a window as launcher.open does (NewManager sets
	// it): a search window opens its results as web_fetch windows.
	openWindow func(ctx context.Context, app, target string) Result
}

// Journal records a file before aci changes it.
type Journal interface {
	Record(path string)
}

// Manager owns the open windows, in the order they were opened, the
// launcher always first.
type Manager struct {
	mu       sync.Mutex
	env      *Env
	apps     map[string]App
	appOrder []string
	windows  []Window
	counters map[string]int
}

// NewManager makes a manager with the launcher open and the given apps
// available. The apps are built from the manager's Env (see Env()).
func NewManager(env Env, apps ...func(*Env) App) *Manager {
	if env.OutputLimit <= 0 {
		env.OutputLimit = 30000
	}
	if env.Guard == nil {
		env.Guard = guard.New(guard.EnvFromOS())
	}
	if env.Secrets == nil {
		env.Secrets = secrets.NewRedactor()
	}
	if env.Network == nil {
		// The session hands down the policy of the settings read at its
		// start; a manager made without one has the built-in hosts only.
		env.Network = netproxy.New(netproxy.Policy{Allow: netproxy.Builtin()})
	}
	env.Approver = &sessionApprover{next: env.Approver, always: map[string]bool{}, prefixes: map[string][]string{}, rules: env.Rules}
	m := &Manager{env: &env, apps: map[string]App{}, counters: map[string]int{}}
	for _, mk := range apps {
		app := mk(m.env)
		m.apps[app.Name] = app
		m.appOrder = append(m.appOrder, app.Name)
	}
	l := &launcher{m: m}
	m.windows = []Window{l}
	m.env.openWindow = func(ctx context.Context, app, target string) Result {
		return l.open(ctx, Args{values: map[string]any{"app": app, "target": target}})
	}
	return m
}

// Windows returns the open windows, launcher first.
func (m *Manager) Windows() []Window {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Window(nil), m.windows...)
}

// Execute validates and runs one action. It never panics: a failing handler
// becomes an error result.
func (m *Manager) Execute(ctx context.Context, windowID, actionID string, raw map[string]json.RawMessage) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Fail("internal error in %s.%s: %v", windowID, actionID, r)
		}
	}()
	w := m.find(windowID)
	if w == nil {
		return Fail("no window %q; open windows: %s", windowID, strings.Join(m.ids(), ", "))
	}
	var action *Action
	var names []string
	for _, a := range w.Actions() {
		names = append(names, a.ID)
		if a.ID == actionID {
			action = &a
		}
	}
	if action == nil {
		return Fail("window %s has no action %q; its actions: %s", windowID, actionID, strings.Join(names, ", "))
	}
	args, err := Validate(*action, raw)
	if err != nil {
		return Fail("%v", err)
	}
	if action.Run == nil {
		return m.close(w)
	}
	res = action.Run(ctx, args)
	m.afterAction(ctx, w, actionID)
	return res
}

// Open opens a window of app on target, as launcher.open does.
func (m *Manager) Open(ctx context.Context, appName, target string) (Window, Result) {
	return m.open(ctx, appName, target, 0)
}

// reopen opens a window under the id it had in an earlier session.
func (m *Manager) reopen(ctx context.Context, id, target string) (Window, Result) {
	i := strings.LastIndexByte(id, '_')
	var n int
	if i < 0 {
		return nil, Fail("bad window id %q", id)
	}
	if _, err := fmt.Sscanf(id[i+1:], "%d", &n); err != nil || n < 1 {
		return nil, Fail("bad window id %q", id)
	}
	return m.open(ctx, id[:i], target, n)
}

// open opens a window numbered n, or the next free number when n is 0.
func (m *Manager) open(ctx context.Context, appName, target string, n int) (Window, Result) {
	app, ok := m.apps[appName]
	if !ok {
		return nil, Fail("unknown app %q; apps: %s", appName, strings.Join(m.appOrder, ", "))
	}
	m.mu.Lock()
	prev := m.counters[appName]
	if n == 0 {
		n = prev + 1
	}
	m.counters[appName] = max(prev, n)
	id := fmt.Sprintf("%s_%d", appName, n)
	m.mu.Unlock()
	w, msg, err := app.Open(ctx, id, target)
	if err != nil {
		m.mu.Lock()
		m.counters[appName] = prev // the id was never shown, reuse it
		m.mu.Unlock()
		if d, ok := err.(deniedError); ok {
			return nil, d.result
		}
		return nil, Fail("%v", err)
	}
	m.mu.Lock()
	m.windows = append(m.windows, w)
	m.mu.Unlock()
	text := "opened " + id
	if msg != "" {
		text += ": " + msg
	}
	res := OK("%s", text)
	res.Opened = id
	if app.Started {
		res.Status = protocol.StatusStarted
	}
	return w, res
}

func (m *Manager) close(w Window) Result {
	if w.ID() == launcherID {
		return Fail("the launcher cannot be closed")
	}
	w.Close()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, x := range m.windows {
		if x == w {
			m.windows = append(m.windows[:i], m.windows[i+1:]...)
			break
		}
	}
	return OK("closed %s", w.ID())
}

// Reset closes every window but the launcher.
func (m *Manager) Reset() {
	for _, w := range m.Windows() {
		if w.ID() != launcherID {
			m.close(w)
		}
	}
}

// CloseAll ends everything the windows hold; used when aci exits.
func (m *Manager) CloseAll() { m.Reset() }

// WindowState is what it takes to reopen a window in a later session.
type WindowState struct {
	ID     string `json:"id"`
	App    string `json:"app"`
	Target string `json:"target"`
}

// Snapshot lists the open windows but the launcher, to reopen them later.
func (m *Manager) Snapshot() []WindowState {
	var out []WindowState
	for _, w := range m.Windows()[1:] {
		out = append(out, WindowState{ID: w.ID(), App: w.App(), Target: w.Title()})
	}
	return out
}

// Restore reopens windows of an earlier session under their old ids, so
// the history's references to them stay right. Windows whose app says they
// cannot be reopened (App.Resumable) stay closed. It returns the ids
// reopened.
func (m *Manager) Restore(ctx context.Context, states []WindowState) []string {
	var reopened []string
	for _, s := range states {
		app, ok := m.apps[s.App]
		if !ok || app.Resumable == nil || !app.Resumable(s.Target) {
			continue
		}
		if _, res := m.reopen(ctx, s.ID, s.Target); res.Status == protocol.StatusOK {
			reopened = append(reopened, s.ID)
		}
	}
	m.warmDiagnostics()
	return reopened
}

func (m *Manager) find(id string) Window {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range m.windows {
		if w.ID() == id {
			return w
		}
	}
	return nil
}

func (m *Manager) ids() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, len(m.windows))
	for i, w := range m.windows {
		ids[i] = w.ID()
	}
	return ids
}

// FindOpen returns an open window of app whose title is title, if any.
func (m *Manager) findOpen(app, title string) Window {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range m.windows {
		if w.App() == app && w.Title() == title {
			return w
		}
	}
	return nil
}

// deniedError carries a denial out of an app's Open.
type deniedError struct{ result Result }

func (d deniedError) Error() string { return d.result.Text }

// openOn finishes an app's Open for a window whose target is its first
// action's argument (a query, a URL): without a target the window opens
// empty with hint; a denied first run refuses the open, a failed one is
// its error.
func openOn(w Window, target, hint string, first func(string) Result) (Window, string, error) {
	if strings.TrimSpace(target) == "" {
		return w, hint, nil
	}
	r := first(target)
	switch r.Status {
	case protocol.StatusOK:
	case protocol.StatusDenied:
		return nil, "", deniedError{r}
	default:
		return nil, "", errors.New(r.Text)
	}
	return w, r.Text, nil
}

// openPath is the path a file-like window's target names: ~/ is the
// home folder, a relative path is below the workdir, a /tmp path is where
// the bash windows' commands see it (the machine's when its top folder
// exists there, else the session's own). A path the guard finds dangerous
// is opened only when the person allows it.
func (env *Env) openPath(ctx context.Context, id, target string) (string, error) {
	path := target
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[2:])
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Workdir, path)
	}
	path = sandbox.For(env.Workdir).HostPath(filepath.Clean(path))
	if v := env.Guard.CheckPath(path, env.Workdir, false); v.Dangerous {
		req := ApprovalRequest{Kind: protocol.AskFile, WindowID: id, Subject: "open " + target, Reason: v.Reason, Part: v.Part}
		if r := env.ask(ctx, req); r != nil {
			return "", deniedError{*r}
		}
	}
	return path, nil
}

// pathApp is an app whose target is a path of the workspace (a file, a
// working folder): a window of it opens again on resume while the path,
// relative to the workspace unless absolute, exists.
func pathApp(env *Env, name, desc, target string, open func(ctx context.Context, env *Env, id, target string) (Window, string, error)) App {
	workdir := env.Workdir
	return App{
		Name:   name,
		Desc:   desc,
		Target: target,
		Resumable: func(path string) bool {
			if !filepath.IsAbs(path) {
				path = filepath.Join(workdir, path)
			}
			_, err := os.Stat(path)
			return err == nil
		},
		Open: func(ctx context.Context, id, target string) (Window, string, error) {
			return open(ctx, env, id, target)
		},
	}
}
