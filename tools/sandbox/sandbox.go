// Package sandbox contains the commands aci runs for the model: they may
// write only to the workspace, the temp directories and the user's build
// caches, cannot read the user's secret stores, and inherit no credential
// variables. On Linux it uses bubblewrap and falls back to Landlock when
// bwrap cannot run; on macOS a sandbox-exec profile (best effort). It knows
// nothing of tools or windows: it only turns an argv into a contained argv.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Kind is the mechanism that contains commands.
type Kind string

// The mechanisms. None runs commands as they are (environment still
// scrubbed of credentials).
const (
	None     Kind = "none"
	Bwrap    Kind = "bwrap"
	Landlock Kind = "landlock"
	Seatbelt Kind = "sandbox-exec"
)

// Modes of ACI_SANDBOX.
const (
	ModeWorkspace = "workspace"
	ModeOff       = "off"
	// ModeContainer runs commands as they are because the container aci
	// runs in is the boundary (docs/protocol.md §11): the person said so.
	ModeContainer = "container"
)

// ParseMode validates an ACI_SANDBOX value; "" means the default, workspace.
func ParseMode(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", ModeWorkspace:
		return ModeWorkspace, nil
	case ModeOff:
		return ModeOff, nil
	case ModeContainer:
		return ModeContainer, nil
	}
	return "", fmt.Errorf("ACI_SANDBOX must be %q, %q or %q, got %q", ModeWorkspace, ModeContainer, ModeOff, s)
}

// Sandbox runs commands under one mechanism and policy. A nil *Sandbox
// contains nothing.
type Sandbox struct {
	kind   Kind
	policy Policy

	tmpOnce sync.Once
	tmpDir  string // the session's private temp folder (tmp.go)

	mu       sync.Mutex
	standIns map[string]*heldStandIn // grants' mount points in the session's /tmp, in use (protect_cmd.go)
	prot     protectState            // protected names at any depth (protect_cmd.go)
	seal     sealState               // exec-relevant files kept as they were (seal.go)
	outer    *Sandbox                // set for an uncontained command's: see Uncontained
	trusted  trustedFiles            // files a trusted folder's hooks run: read-only too (protect_trusted.go)
	side     sideState               // kept secrets, journal: closed with it (state.go)

	oneShot    bool       // every command gets a bwrap of its own (Options.OneShot)
	sessMu     sync.Mutex // guards the session fields
	sess       *session   // the sandbox set up once for the commands (session_linux.go)
	sessStarts int        // how often it was started
	sessErr    error      // why it could not start, last time
}

// Options choose the mechanism.
type Options struct {
	// Force uses this mechanism and fails when it cannot run; "" picks the
	// best one the machine offers (bwrap, then Landlock), None when there
	// is none.
	Force Kind
	// OneShot gives each command a bwrap of its own, set up from scratch,
	// rather than a light one inside the session's (session_linux.go):
	// slower to start, for comparing the two and for tests.
	OneShot bool
}

// ErrUnavailable says the machine cannot contain commands.
var ErrUnavailable = errors.New("this machine cannot contain commands")

// New returns a Sandbox for p, probing the machine for a mechanism.
func New(p Policy, opt Options) (*Sandbox, error) {
	protectSelf()
	SweepLeftovers()
	kinds := available()
	if opt.Force != "" {
		if opt.Force == None {
			return opened(&Sandbox{kind: None, policy: p}), nil
		}
		if err := probe(opt.Force); err != nil {
			return nil, fmt.Errorf("sandbox %s: %w", opt.Force, err)
		}
		return opened(&Sandbox{kind: opt.Force, policy: p, oneShot: opt.OneShot}), nil
	}
	var errs []error
	for _, k := range kinds {
		err := probe(k)
		if err == nil {
			return opened(&Sandbox{kind: k, policy: p, oneShot: opt.OneShot}), nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", k, err))
	}
	return opened(&Sandbox{kind: None, policy: p}), fmt.Errorf("%w (%v)", ErrUnavailable, errors.Join(errs...))
}

// Kind is the mechanism in use; None for a nil Sandbox.
func (s *Sandbox) Kind() Kind {
	if s == nil {
		return None
	}
	return s.kind
}

// Contained reports whether commands run contained.
func (s *Sandbox) Contained() bool { return s.Kind() != None }

// Policy is what contained commands may touch.
func (s *Sandbox) Policy() Policy {
	if s == nil {
		return Policy{}
	}
	return s.policy
}

// Wrap returns the argv that runs argv (argv[0] found on PATH) contained,
// starting in dir; extraWritable are writable for this command only (a
// private temp dir of the caller). A nil or None Sandbox returns argv.
//
// Where the sandbox keeps commands off the network (NetContained), the
// command has no network at all; WrapLinked gives it a way to the proxy.
func (s *Sandbox) Wrap(argv []string, dir string, extraWritable ...string) ([]string, error) {
	return s.WrapLinked(argv, dir, nil, extraWritable...)
}

// WrapLinked is Wrap for a command whose one way out is l (from NewLink;
// nil: none). The process started must inherit l.ExtraFiles().
func (s *Sandbox) WrapLinked(argv []string, dir string, l *Link, extraWritable ...string) ([]string, error) {
	return s.WrapGranted(argv, dir, l, Grant{}, extraWritable...)
}

// WrapGranted is WrapLinked for a command given g on top of the policy
// (what the person allowed for it: grant.go).
func (s *Sandbox) WrapGranted(argv []string, dir string, l *Link, g Grant, extraWritable ...string) ([]string, error) {
	if !s.Contained() {
		return argv, nil
	}
	p := s.policy
	// The policy is shared by every command of the process: appending in
	// place would write into its spare capacity, racing with (and leaking
	// into) another session's command.
	p.Writable = slices.Clip(p.Writable)
	for _, e := range extraWritable {
		p.Writable = appendUnique(p.Writable, real(e))
	}
	if l != nil {
		argv = l.front(argv)
		p.ProxyPort = l.port
	}
	if s.kind == Bwrap || s.kind == Landlock {
		if p.PrivateTmp = s.privateTmp(); p.PrivateTmp != "" && s.kind == Landlock {
			// Landlock cannot put them at /tmp: TMPDIR names them (Env).
			p.Writable = appendUnique(appendUnique(p.Writable, filepath.Join(p.PrivateTmp, "tmp")), filepath.Join(p.PrivateTmp, "var-tmp"))
		}
	}
	p = g.apply(s.kind, p)
	if s.kind == Bwrap {
		s.wantLook() // the index must know what is there now
		p.Protected = s.protectedPresent(p.Protected)
		p.Kept = s.keptFor(g.Read)
		p.Sealed = s.sealedEntries()
	}
	return wrap(s.kind, p, argv, dir)
}

// Command is Wrap for a command about to start: release, called once the
// command has ended, removes the mount points bwrap made in the session's
// /tmp for a grant, unless another running command still uses them or
// something filled them meanwhile; and it moves the protected files that
// appeared while the command ran (made by it, most likely) into the
// session's temp folder, and says so for each ("path ...: why").
func (s *Sandbox) Command(argv []string, dir string, extraWritable ...string) (out []string, release func() []string, err error) {
	return s.CommandLinked(argv, dir, nil, extraWritable...)
}

// CommandLinked is Command for a command whose one way out is l (see
// WrapLinked).
func (s *Sandbox) CommandLinked(argv []string, dir string, l *Link, extraWritable ...string) (out []string, release func() []string, err error) {
	return s.CommandGranted(argv, dir, l, Grant{}, extraWritable...)
}

// CommandGranted is CommandLinked for a command given g (see WrapGranted).
func (s *Sandbox) CommandGranted(argv []string, dir string, l *Link, g Grant, extraWritable ...string) (out []string, release func() []string, err error) {
	out, err = s.WrapGranted(argv, dir, l, g, extraWritable...)
	if err == nil && s != nil && s.outer != nil {
		return out, s.outer.watchUncontained(), nil
	}
	if err != nil || s.Kind() != Bwrap || s.tmpDir == "" {
		return out, func() []string { return nil }, err
	}
	return out, s.watchGrant(g, s.protectCommand(s.grantStubs(g))), nil
}

// processState is the process-wide setting, from ACI_SANDBOX.
type processState struct {
	sync.Mutex
	mode   string
	force  Kind
	set    bool
	cache  map[string]*Sandbox
	notify func(string) // told once when the machine cannot contain commands
	told   bool
}

var process processState

// Configure sets the mode for the whole process (ACI_SANDBOX). It does not
// probe the machine: running bwrap once costs tens of milliseconds, and a
// run that executes no command never needs it. The probe comes with the
// first command (For), or with Probe. notify, when not nil, receives one
// line, once, if the machine turns out unable to contain commands.
func Configure(mode string, notify func(string)) error {
	m, err := ParseMode(mode)
	if err != nil {
		return err
	}
	protectSelf()
	SweepLeftovers() // what a killed aci left in a workspace
	process.Lock()
	process.mode, process.set, process.cache = m, true, nil
	process.notify, process.told = notify, false
	process.Unlock()
	return nil
}

// Probe finds the machine's mechanism now rather than at the first
// command, so that the notice, if any, comes now: for a session a person
// watches from its start.
func Probe() {
	process.Lock()
	defer process.Unlock()
	if process.mode == ModeOff || process.mode == ModeContainer {
		return
	}
	s, err := New(Policy{}, Options{Force: process.force})
	process.tellLocked(s, err)
}

// tellLocked says once what the probe found that a person must know:
// commands run uncontained, or contained but with the network open.
func (p *processState) tellLocked(s *Sandbox, err error) {
	if p.told || p.notify == nil {
		return
	}
	switch {
	case err != nil:
		p.notify("commands run uncontained: " + err.Error() + "; the guard alone decides")
	case s != nil && !s.NetContained():
		p.notify("contained commands reach the network directly: " + netOpenWhy(s.kind))
	default:
		return
	}
	p.told = true
}

// netOpenWhy says why mechanism k leaves the network open.
func netOpenWhy(k Kind) string {
	if k == Landlock {
		return "bwrap cannot run here, and this kernel's Landlock has no network rules (they need Linux 6.7)"
	}
	return string(k) + " does not keep commands off the network"
}

// SetForce makes every later For use mechanism k ("" = best available): for
// tests of the fallback.
func SetForce(k Kind) {
	process.Lock()
	defer process.Unlock()
	process.force, process.cache = k, nil
}

// For is the process's Sandbox for a session in workdir: nil when
// ACI_SANDBOX is off or the machine cannot contain commands. It is probed
// once per workdir and kept.
func For(workdir string) *Sandbox {
	process.Lock()
	defer process.Unlock()
	if !process.set {
		process.mode = ModeWorkspace
		if m, err := ParseMode(os.Getenv("ACI_SANDBOX")); err == nil {
			process.mode = m
		}
		process.set = true
	}
	if process.mode == ModeOff || process.mode == ModeContainer {
		return nil
	}
	if s, ok := process.cache[workdir]; ok {
		return s
	}
	s, err := New(DefaultPolicy(workdir), Options{Force: process.force})
	process.tellLocked(s, err)
	if err != nil {
		s = nil
	}
	if process.cache == nil {
		process.cache = map[string]*Sandbox{}
	}
	process.cache[workdir] = s
	return s
}
