// Package session is one conversation with aci, whatever drives it: the
// REPL, pipe and headless modes, the server and ACP all build sessions here.
// A session owns its window manager (with its sandboxed commands and MCP
// servers), its agent, its transcript, its approvals and the fan-out of its
// events; front ends only draw events and answer questions.
package session

import (
	"context"
	"errors"
	"fmt"
	"github.com/aci-dev/aci/internal/otlp"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/guard"
	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/tools/mcp"
	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/secrets"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/tools/wsenv"
	"github.com/aci-dev/aci/transcript"
	"github.com/aci-dev/aci/windows"
)

// Config is what every session of one aci process shares.
type Config struct {
	Client      agent.ClientConfig // the model; Notify is the process's own (say, stderr)
	Agent       agent.Config       // system prompt, limits, redaction; Hints are filled per workspace
	OutputLimit int
	// SessionsDir holds the transcripts; "" is transcript.Dir(), and a
	// folder that cannot be found means sessions are not written.
	SessionsDir string
	// ApprovalTimeout denies a question no one answers (sessions without
	// an Approver); 0 is 10 minutes.
	ApprovalTimeout time.Duration
	// Now gives today's date for the system prompt; nil is time.Now.
	Now func() time.Time
	// Secrets are the values Agent.Redact removes; streams hold back as
	// much as the longest of them. main builds the set once at start and
	// hands it here (nil: an empty set).
	Secrets *secrets.Redactor
	// URLSecrets are more values a fetched URL must not carry without
	// asking (what .env set); nil: none.
	URLSecrets *secrets.Redactor
	// Limits are the budgets of every session (limits.go); Agent.MaxSteps
	// is the third.
	Limits Limits
	// Endpoint, when set, is a workspace's endpoint for the person's key:
	// no session starts until the folder is trusted with it (endpoint.go).
	Endpoint EndpointHold
	// DiagnosticsWait bounds how long an action waits for a language
	// server's diagnostics; 0 is tools/lsp's default (2.5 s). Tests on a
	// loaded machine give more.
	DiagnosticsWait time.Duration
	// Telemetry receives spans and sums of every session (docs/protocol.md
	// §11); nil sends nothing.
	Telemetry *otlp.Exporter
	// Person and Project are the settings main read at start (the
	// person's file, and the project's files of the folder it started
	// in): every session takes its settings from these, never from the
	// files again. nil Person: NewFactory reads it; a session in another
	// workspace reads that one's project files once (Factory.Project).
	Person  *settings.Person
	Project *settings.Project
}

// Factory builds sessions.
type Factory struct {
	cfg Config

	mu       sync.Mutex
	projects map[string]*settings.Project // by workspace root
	// envAllow is the person's workspace_env list, what a workspace's
	// hooks and servers may be given of their environment.
	envAllow    wsenv.List
	envProblems []string
}

// NewFactory keeps cfg for the sessions it builds.
func NewFactory(cfg Config) *Factory {
	if cfg.ApprovalTimeout <= 0 {
		cfg.ApprovalTimeout = 10 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Secrets == nil {
		cfg.Secrets = secrets.NewRedactor()
	}
	if cfg.Agent.Redact == nil {
		cfg.Agent.Redact = cfg.Secrets.Redact
	}
	if cfg.Person == nil {
		cfg.Person = settings.ReadPerson()
	}
	f := &Factory{cfg: cfg, projects: map[string]*settings.Project{}}
	f.envAllow, f.envProblems = wsenv.FromSettings(cfg.Person)
	if cfg.Project != nil {
		f.projects[cfg.Project.Root] = cfg.Project
	}
	return f
}

// Project is the project settings of the workspace workdir lies in, read
// once per process.
func (f *Factory) Project(workdir string) *settings.Project {
	root := sandbox.WorkspaceRoot(workdir)
	f.mu.Lock()
	defer f.mu.Unlock()
	pr := f.projects[root]
	if pr == nil {
		pr = settings.ReadProject(root)
		f.projects[root] = pr
	}
	return pr
}

// Config returns what the factory was built with.
func (f *Factory) Config() Config { return f.cfg }

// Options are one session's own settings.
type Options struct {
	Workdir string // the workspace; "" is not allowed
	Model   string // "" is the configured model
	// Approver answers questions; nil turns each into an approval event
	// that waits for Decide (or the timeout, then denied).
	Approver windows.Approver
	Journal  windows.Journal // the REPL's undo journal, or nil
	// Events sees every event in order, none dropped, from its own queue
	// on its own goroutine: the front ends that draw (REPL, pipe, ACP)
	// read it, and one that is slow stalls only itself (inbox.go). Run
	// and Ask return, and the Approver is asked, once it has taken the
	// events before. It must not call back into the session's turn
	// methods.
	Events func(Event)
	// Env has the last say over the windows' environment (ACP's editor
	// file access).
	Env func(*windows.Env)
	// MCP servers join those configured for the workspace (ACP's).
	MCP map[string]mcp.ServerConfig
	// Resume continues the latest session of Workdir, or ResumeID's.
	Resume   bool
	ResumeID string
	// Mode is the permission mode the session starts in ("" is default).
	Mode windows.PermMode
	// Trust lets the project's hooks and MCP servers run in a folder the
	// person has not trusted yet (--trust, or a yes just now).
	Trust bool
	// Say receives one-line notes about starting (what was resumed, why a
	// transcript could not be written, MCP configuration problems).
	Say func(string)
	// Answer checks each final answer (--output-schema); nil: none.
	// A session's agents answer it in words, unchecked.
	Answer agent.AnswerChecker

	child     bool                // an agent window's conversation: no agents of its own (child.go)
	modeLimit *windows.ModeSwitch // a child's mode is never freer than its parent's
	spend     *spending           // a child's parent's: one budget for both (limits.go)
}

// ErrUsage marks a session that cannot start as asked (an unknown id).
var ErrUsage = errors.New("bad session request")

// New builds a session: its windows, agent and transcript (new, or
// resumed as Options say).
func (f *Factory) New(ctx context.Context, opt Options) (*Session, error) {
	s, err := f.build(opt)
	if err != nil {
		return nil, err
	}
	if err := s.attach(ctx, opt); err != nil {
		s.Close()
		return nil, err
	}
	s.sessionStart(ctx, map[bool]string{true: "resume", false: "startup"}[opt.Resume])
	return s, nil
}

// Open continues the stored session id (a file name or unique prefix) of
// Workdir, whichever front end made it.
func (f *Factory) Open(ctx context.Context, id string, opt Options) (*Session, error) {
	opt.Resume, opt.ResumeID = true, id
	return f.New(ctx, opt)
}

// Fork starts a branch: a new session whose history is the first turn
// turns of the stored session parentID, with the windows open then opened
// again on what the machine holds now.
func (f *Factory) Fork(ctx context.Context, parentID string, turn int, opt Options) (*Session, error) {
	dir, err := f.SessionsDir()
	if err != nil {
		return nil, err
	}
	parent, err := agent.FindSession(dir, opt.Workdir, parentID)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	t, state, err := agent.ForkTranscript(dir, parent.Path, turn, f.cfg.Client.APIKey)
	if err != nil {
		if errors.Is(err, agent.ErrNoSuchTurn) {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		return nil, err
	}
	return f.branch(ctx, opt, parent.Model, t, state)
}

// branch builds the session that continues the branch transcript t (a fork
// or a rewind), on the parent's model unless opt names one.
func (f *Factory) branch(ctx context.Context, opt Options, parentModel string, t *transcript.File, state agent.Session) (*Session, error) {
	if opt.Model == "" && parentModel != "" {
		opt.Model = parentModel
	}
	s, err := f.build(opt)
	if err != nil {
		t.Close()
		return nil, err
	}
	s.resumeFrom(ctx, t, state)
	return s, nil
}

// SessionsDir is where the transcripts are: the one place that finds it.
func (f *Factory) SessionsDir() (string, error) {
	if f.cfg.SessionsDir != "" {
		return f.cfg.SessionsDir, nil
	}
	return transcript.Dir()
}

// Listed is a stored session as a list shows it (--sessions, the page):
// titled by its first question as the person typed it.
type Listed struct {
	ID, Path, Parent string
	FromTurn         int
	Started          time.Time
	Turns            []TurnInfo
}

// Title is the session's first question as the person typed it.
func (l Listed) Title() string {
	if len(l.Turns) == 0 {
		return ""
	}
	return l.Turns[0].Question
}

// List is workdir's stored sessions, newest first.
func (f *Factory) List(workdir string) ([]Listed, error) {
	dir, err := f.SessionsDir()
	if err != nil {
		return nil, err
	}
	list, err := agent.ListSessions(dir, workdir)
	out := make([]Listed, len(list))
	for i, st := range list {
		out[i] = Listed{ID: st.ID, Path: st.Path, Parent: st.Parent, FromTurn: st.FromTurn, Started: st.Started, Turns: StoredTurns(st)}
	}
	return out, err
}

// build makes the parts: client, guard, windows and agent.
func (f *Factory) build(opt Options) (*Session, error) {
	if opt.Workdir == "" {
		return nil, fmt.Errorf("%w: a session needs a working directory", ErrUsage)
	}
	if !filepath.IsAbs(opt.Workdir) {
		return nil, fmt.Errorf("%w: the working directory must be absolute, got %q", ErrUsage, opt.Workdir)
	}
	if err := f.checkEndpoint(); err != nil {
		return nil, err
	}
	say := opt.Say
	if say == nil {
		say = func(string) {}
	}
	s := &Session{f: f, workdir: opt.Workdir, project: f.Project(opt.Workdir), envAllow: f.envAllow, say: say, pending: map[string]chan windows.Decision{}, subs: map[*subscriber]bool{}, views: map[string]windowView{}, state: StateIdle}
	s.opt = opt
	s.spend = opt.spend
	if s.spend == nil {
		s.spend = &spending{}
	}
	if opt.Events != nil {
		s.inbox = newInbox(opt.Events)
	}

	ccfg := f.cfg.Client
	if opt.Model != "" {
		ccfg.Model = opt.Model
	}
	s.model = ccfg.Model
	s.tel = newTelemetry(f.cfg.Telemetry, ccfg.BaseURL, s.Model)
	processNotify := ccfg.Notify
	ccfg.Notify = func(line string) {
		if processNotify != nil {
			processNotify(line)
		}
		s.publish(Notice{Kind: noticeKind(line), Text: f.cfg.Agent.Redact(line), Client: true})
	}
	client := agent.NewOpenAIClient(ccfg)
	s.client = client
	if err := client.CheckModel(ccfg.Model); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err) // a provider without its key
	}

	mcpConfig := mcp.LoadConfig(opt.Workdir, s.envAllow)
	for _, p := range mcpConfig.Problems {
		say("MCP configuration: " + p)
	}
	s.trustProject(opt, &mcpConfig)
	if len(opt.MCP) > 0 {
		if mcpConfig.Servers == nil {
			mcpConfig.Servers = map[string]mcp.ServerConfig{}
		}
		for name, sc := range opt.MCP {
			mcpConfig.Servers[name] = sc
		}
	}

	// The hosts contained commands may reach: built in, and the person's
	// and the workspace's settings.
	netPolicy, netProblems := netproxy.FromSettings(f.cfg.Person, s.project)
	for _, p := range netProblems {
		say("network settings: " + p.Error())
	}

	// Undo and rewind put files back beneath the workspace as it is now.
	if ws, ok := opt.Journal.(interface{ SetWorkspace(string) }); ok {
		ws.SetWorkspace(sandbox.WorkspaceRoot(opt.Workdir))
	}
	genv := guard.EnvFromOS()
	genv.Secrets = []string{f.cfg.Client.APIKey}
	env := windows.Env{Workdir: opt.Workdir, OutputLimit: f.cfg.OutputLimit, Guard: guard.New(genv), Journal: opt.Journal,
		Network: netproxy.New(netPolicy), Secrets: f.cfg.Secrets, URLSecrets: f.cfg.URLSecrets}
	env.Approver = windows.ApproverFunc(s.ask)
	if opt.Approver != nil {
		env.Approver = windows.ApproverFunc(s.approve)
	}
	env.Live = s.liveOutput
	s.mode = windows.NewModeSwitch(opt.Mode).Under(opt.modeLimit)
	env.Mode, env.Approver = s.mode, s.yesApprover(env.Approver)
	s.loadPolicy(&env)
	s.diagnostics(&env)
	if opt.Env != nil {
		opt.Env(&env)
	}
	pname, _ := client.SplitModel(ccfg.Model)
	apps := []func(*windows.Env) windows.App{windows.FileApp, windows.BashApp, windows.WebApp, s.searchApp(f.modelEndpoint(pname)), windows.ImageApp}
	if len(mcpConfig.Servers) > 0 {
		s.pool = mcp.NewPool(mcpConfig, mcp.Options{Workdir: opt.Workdir,
			Verify: func(sc mcp.ServerConfig) error { return s.code.VerifyServer(sc, opt.Workdir) }})
		apps = append(apps, windows.MCPAppWith(s.pool))
	}
	if app := skillApp(opt.Workdir, say); app != nil {
		apps = append(apps, app)
	}
	if !opt.child {
		apps = append(apps, windows.AgentApp(childSpawner{s}))
	}
	s.wm = windows.NewManager(env, apps...)

	acfg := f.cfg.Agent
	acfg.Hints = prompt.Hints{
		Workdir:      opt.Workdir,
		OS:           runtime.GOOS + "/" + runtime.GOARCH,
		Date:         f.cfg.Now().Format("2006-01-02"),
		Instructions: prompt.LoadAllInstructions(prompt.UserInstructionsPath(), opt.Workdir),
	}
	s.instructions = acfg.Hints.Instructions
	acfg.Budget, acfg.Answer = s.checkBudget, opt.Answer
	s.agent = agent.New(s.client, s.wm, acfg, s.onEvent)
	s.agent.SetSteer(s.takeSteers)
	s.setupHooks()
	return s, nil
}

// attach gives the session its transcript: the one to resume, or a new one.
func (s *Session) attach(ctx context.Context, opt Options) error {
	dir, err := s.f.SessionsDir()
	if err != nil {
		if opt.ResumeID != "" {
			return err
		}
		s.say("no session transcript: " + err.Error())
		return nil
	}
	key := s.f.cfg.Client.APIKey
	if opt.Resume {
		t, found, err := agent.ResumeSession(dir, opt.Workdir, opt.ResumeID, key)
		if err == nil {
			reopened := s.resumeFrom(ctx, t, found)
			msg := fmt.Sprintf("resumed %s (%s", found.ID, plural(s.turnN, "earlier turn"))
			if len(reopened) > 0 {
				msg += ", reopened " + strings.Join(reopened, ", ")
			}
			s.say(msg + ")")
			if found.Damaged > 0 {
				s.say(fmt.Sprintf("session %s: dropped %s that %s not a whole record (aci stopped while writing?)",
					found.ID, plural(found.Damaged, "damaged line"), map[bool]string{true: "was", false: "were"}[found.Damaged == 1]))
			}
			return nil
		}
		if opt.ResumeID != "" {
			// The person named a session: starting another would surprise.
			return fmt.Errorf("%w: %w", ErrUsage, err)
		}
		s.say(err.Error() + "; starting a new session")
	}
	t, err := transcript.New(dir, transcript.Meta{Workdir: opt.Workdir, Model: s.model}, key)
	if err != nil {
		s.say("no session transcript: " + err.Error())
		return nil
	}
	s.log = t
	s.id = strings.TrimSuffix(filepath.Base(t.Path), ".jsonl")
	s.agent.SetTranscript(t)
	return nil
}

// resumeFrom restores a stored conversation into the session and makes t
// its transcript. It returns the windows reopened.
func (s *Session) resumeFrom(ctx context.Context, t *transcript.File, stored agent.Session) []string {
	reopened := s.agent.Resume(ctx, stored)
	s.agent.SetTranscript(t)
	s.log = t
	s.id = strings.TrimSuffix(filepath.Base(t.Path), ".jsonl")
	s.parent, s.fromTurn = stored.Parent, stored.FromTurn
	seeded := s.seedEvents(stored)
	s.resumed = pastOf(stored.ID, seeded)
	s.modeAsResumed(seeded)
	s.snapshotWindows(false)
	return reopened
}

// noticeKind sorts the client's notices as stream-json does.
func noticeKind(s string) string {
	switch {
	case strings.HasPrefix(s, "retrying"):
		return "retry"
	case strings.HasPrefix(s, "falling back"):
		return "fallback"
	case strings.HasPrefix(s, "the server is still processing"):
		return "slow"
	}
	return "info"
}

// plural is "1 question", "2 questions".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
