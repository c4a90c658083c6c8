package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Grant is access one command gets beyond the policy: what the person
// allowed when they were asked about it (the guard names the paths), and
// the machine's /tmp paths it names. It lives for that command only.
type Grant struct {
	// Write are made writable: files, or folders with everything below.
	// "/" cannot be granted (the caller runs such a command uncontained).
	Write []string
	// Machine are paths below /tmp and /var/tmp that exist on the machine:
	// a command with the session's own /tmp sees these real ones,
	// read-only unless also in Write.
	Machine []string
	// Read are secret files of the workspace the person allowed this
	// command to read (secrets.go): they are not kept back from it.
	Read []string
	// ReadOnlyWorkspace makes the workspace read-only for the command
	// (plan mode): it may read everything it could, and change nothing
	// there. Write is ignored then.
	ReadOnlyWorkspace bool
}

// Empty reports a grant that changes nothing.
func (g Grant) Empty() bool {
	return len(g.Write) == 0 && len(g.Machine) == 0 && len(g.Read) == 0 && !g.ReadOnlyWorkspace
}

// apply returns p with g added for a command contained by k.
func (g Grant) apply(k Kind, p Policy) Policy {
	if g.Empty() {
		return p
	}
	if g.ReadOnlyWorkspace {
		return g.readOnly(k, p)
	}
	var write []string
	for _, w := range g.Write {
		if w = real(w); w != "/" && filepath.IsAbs(w) {
			write = appendUnique(write, w)
		}
	}
	home, _ := os.UserHomeDir()
	var pp Policy
	pp, write, _ = grantProtect(p, write, home) // grant_protect.go
	if k != Bwrap {
		// Landlock and sandbox-exec allow trees: the granted ones join the
		// writable roots. /tmp is the machine's there.
		p.Writable = append(slices.Clip(p.Writable), write...)
		return p
	}
	p.Granted = write
	p.ReadOnly, p.Pinned = pp.ReadOnly, pp.Pinned
	// Inside a granted folder, what stays read-only in the writable roots
	// stays read-only too (a grant of ~ for rm -rf ~/old leaves ~/.bashrc
	// as it is), unless that very file was granted.
	ro := readOnlyUnder(nil, "", nil, home, write)
	p.ReadOnly = slices.Clip(p.ReadOnly)
	for _, r := range ro {
		if !slices.ContainsFunc(write, func(w string) bool { return within(w, r) }) {
			p.ReadOnly = appendUnique(p.ReadOnly, r)
		}
	}
	if p.PrivateTmp == "" {
		return p
	}
	// The machine's paths: those already writable (the workspace under
	// /tmp, a build cache) or granted are the real ones anyway.
	var shared []string
	for _, r := range p.WritableRoots() {
		if r != "/tmp" && r != "/var/tmp" {
			shared = append(shared, r)
		}
	}
	for _, m := range g.Machine {
		m = filepath.Clean(m)
		if !filepath.IsAbs(m) || !privateTmpPath(m) || underAny(m, shared) || underAny(m, write) {
			continue
		}
		p.Machine = appendUnique(p.Machine, m)
	}
	return p
}

// privateTmpPath reports a path strictly below /tmp or /var/tmp, which a
// command with the session's own /tmp would not see.
func privateTmpPath(p string) bool {
	return strings.HasPrefix(p, "/tmp/") || strings.HasPrefix(p, "/var/tmp/")
}

// HostPath is where path, as a contained command sees it, lies on the
// machine, so that the file windows and the bash windows see the same
// files: below /tmp or /var/tmp, a path whose top folder exists on the
// machine is the machine's (a command that names it is shown the real
// one, Grant.Machine); any other is in the session's own /tmp. Outside
// them, and without a private /tmp, a path is itself.
func (s *Sandbox) HostPath(path string) string {
	if s.Kind() != Bwrap || !filepath.IsAbs(path) {
		return path
	}
	path = filepath.Clean(path)
	for _, t := range []struct{ root, sub string }{{"/tmp", "tmp"}, {"/var/tmp", "var-tmp"}} {
		rest, ok := strings.CutPrefix(path, t.root+"/")
		if !ok {
			continue
		}
		top, _, _ := strings.Cut(rest, "/")
		if _, err := os.Lstat(filepath.Join(t.root, top)); err == nil {
			return path
		}
		if underAny(path, s.policy.Workspace) {
			return path
		}
		d := s.privateTmp()
		if d == "" {
			return path
		}
		return filepath.Join(d, t.sub, rest)
	}
	return path
}

// grantStubs are the places in the session's own /tmp where bwrap makes
// mount points for g's paths below /tmp (an empty file or folder, and
// the folders above it), deepest first. They are counted and removed
// with the protected stand-ins once no running command uses them:
// otherwise a later command that reached such a path without naming it
// would find an empty stand-in instead of nothing.
func (s *Sandbox) grantStubs(g Grant) []string {
	if s.tmpDir == "" || g.Empty() {
		return nil
	}
	p := g.apply(Bwrap, Policy{Workspace: s.policy.Workspace, Writable: s.policy.Writable, PrivateTmp: s.tmpDir})
	var out []string
	for _, m := range append(append([]string{}, p.Machine...), p.Granted...) {
		root, sub := "/tmp", "tmp"
		if strings.HasPrefix(m, "/var/tmp/") {
			root, sub = "/var/tmp", "var-tmp"
		} else if !strings.HasPrefix(m, "/tmp/") {
			continue
		}
		for q := m; q != root && q != "/"; q = filepath.Dir(q) {
			out = append(out, filepath.Join(s.tmpDir, sub, strings.TrimPrefix(q, root+"/")))
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// Adds reports whether g gives a command of s anything beyond the policy
// (paths named only inside the workspace or another writable root add
// nothing): a start path that cannot bind paths per command (a sandbox
// shared by the session's commands) must hand such a command to one that
// can (CommandGranted).
func (s *Sandbox) Adds(g Grant) bool {
	if !s.Contained() || g.Empty() {
		return false
	}
	if len(g.Read) > 0 && s.kind == Bwrap {
		return true // the session's commands all have the secrets kept back
	}
	if g.ReadOnlyWorkspace {
		return true // the session's sandbox has the workspace writable
	}
	p := g.apply(s.kind, Policy{Workspace: s.policy.Workspace, Writable: s.policy.Writable, PrivateTmp: "private"})
	if s.kind != Bwrap {
		return len(g.Write) > 0
	}
	return len(p.Granted) > 0 || len(p.Machine) > 0
}

// readOnly is apply for a grant that makes the workspace read-only: bwrap
// binds it again read-only over its writable bind (the machine's /tmp
// paths still shown); Landlock and sandbox-exec leave it out of the
// writable roots.
func (g Grant) readOnly(k Kind, p Policy) Policy {
	if k != Bwrap {
		p.Workspace = nil
		return p
	}
	p.ReadOnly = append(slices.Clip(p.ReadOnly), p.Workspace...)
	// A missing protected file needs no stand-in (nothing can create it),
	// and bwrap could not make its mount point in a read-only folder.
	p.StandIns = nil
	if p.PrivateTmp != "" {
		for _, m := range g.Machine {
			if m = filepath.Clean(m); filepath.IsAbs(m) && privateTmpPath(m) && !underAny(m, p.Workspace) {
				p.Machine = appendUnique(p.Machine, m)
			}
		}
	}
	return p
}

// ReadOnlyHolds reports whether a ReadOnlyWorkspace grant keeps the whole
// workspace read-only here: always under bwrap; under Landlock and
// sandbox-exec, which only grant, not where a writable root (a temp
// folder) holds the workspace.
func (s *Sandbox) ReadOnlyHolds() bool {
	if !s.Contained() {
		return false
	}
	if s.kind == Bwrap {
		return true
	}
	for _, w := range s.policy.Workspace {
		if underAny(w, s.policy.Writable) {
			return false
		}
	}
	return true
}
