package sandbox

import (
	"fmt"
	"github.com/aci-dev/aci/internal/dirs"
	"github.com/aci-dev/aci/tools/secrets"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Policy is what a contained command may touch. All paths are absolute,
// clean and have their symlinks resolved: the mechanisms below see real
// paths.
type Policy struct {
	Workspace []string // writable: the workspace (working dir or git root) and its git dirs
	Writable  []string // writable: /dev/shm, and what a command is given on top (its run folder)
	// Layered are the person's build and package caches, seen
	// copy-on-write in the session's sandbox: read as they are, written
	// into the session's folder (caches.go). Read-only where they cannot
	// be layered.
	Layered []string `json:",omitempty"`
	Hidden  []string // neither readable nor writable: secret stores
	// ReadOnly are paths inside the writable roots that stay read-only:
	// what a command could plant there would run later, outside the
	// sandbox (git hooks and config, shell startup files when the
	// workspace is the home folder).
	ReadOnly []string
	// ProxyPort is the one TCP port a command may connect to where
	// Landlock keeps it off the network (its Link's); set per command.
	ProxyPort int `json:",omitempty"`
	// Protected are the files in the workspace that configure aci or that
	// other tools run when the person opens the folder (protected.go):
	// read-only where they exist, and not creatable where they do not.
	Protected []string
	// StandIns are the protected paths aci trusts at its next start:
	// watched through a crash where they do not exist yet
	// (protect_watch.go).
	StandIns []string
	// PrivateTmp is the session's folder whose tmp and var-tmp stand in
	// for /tmp and /var/tmp; "" shares the machine's.
	PrivateTmp string
	// Granted are writable for one command: what the person allowed it to
	// write outside the workspace (grant.go).
	Granted []string `json:",omitempty"`
	// Machine are the machine's own paths below /tmp and /var/tmp that one
	// command named: read-only over the private ones, so that it sees
	// what the person and the file windows see.
	Machine []string `json:",omitempty"`
	// Kept are the workspace's secret files one command does not read
	// (secrets.go): each covered by an empty read-only stand-in.
	Kept []string `json:",omitempty"`
	// Sealed are the workspace's .git entries, bound over themselves so
	// that no command can move them aside (seal_linux.go).
	Sealed []string `json:",omitempty"`
	// Pinned are folders inside a grant bound over themselves, so that a
	// granted command cannot rename away what stays read-only in them
	// (grant_protect.go).
	Pinned []string `json:",omitempty"`
}

// WritableRoots is Workspace and Writable together.
func (p Policy) WritableRoots() []string { return append(slices.Clone(p.Workspace), p.Writable...) }

// canWrite reports whether path lies in a writable root and outside every
// hidden path.
func (p Policy) canWrite(path string) bool {
	return !p.hidden(path) && !underAny(path, p.ReadOnly) && underAny(path, p.WritableRoots())
}

func (p Policy) hidden(path string) bool { return underAny(path, p.Hidden) }

// underAny reports whether path is one of roots or below one.
func underAny(path string, roots []string) bool {
	for _, r := range roots {
		if within(path, r) {
			return true
		}
	}
	return false
}

// within reports whether path is root or lies below it (both clean).
func within(path, root string) bool {
	if root == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == root || strings.HasPrefix(path, root+"/")
}

// controlSockets let a command drive a daemon that runs outside the sandbox
// (docker run -v /:/host): bwrap covers them. Landlock below ABI 9 cannot
// stop a connect(2); there the guard judges such commands.
var controlSockets = []string{"/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
	"/run/podman/podman.sock", "/var/run/crio/crio.sock", "/run/user/%d/docker.sock", "/run/user/%d/podman/podman.sock"}

// DefaultPolicy is the policy for a session started in workdir: the
// workspace is workdir's git root (or workdir), with the git directories a
// worktree points to; the session's temp folders are writable and the
// existing build caches layered (caches.go); the secret stores that exist
// are hidden.
func DefaultPolicy(workdir string) Policy {
	home, _ := os.UserHomeDir()
	var p Policy
	ws := real(workdir)
	if root := gitRoot(ws); root != "" {
		ws = root
	}
	p.Workspace = append(p.Workspace, ws)
	p.Workspace = append(p.Workspace, gitDirs(ws)...)
	// The temp folders are the session's own (tmp.go), not the machine's.
	p.Writable = appendDir(p.Writable, "/dev/shm")
	p.Hidden = SecretStores()
	p.Layered = layerable(cacheRoots(home), p.Workspace, p.Hidden)
	p.Protected, p.StandIns = protectedCandidates(ws, real(workdir))
	p.ReadOnly = readOnlyUnder(p.ReadOnly, ws, p.Workspace[1:], home, p.WritableRoots())
	for _, d := range pathDirsUnder(os.Getenv("PATH"), append(p.WritableRoots(), p.Layered...), p.Workspace) {
		p.ReadOnly = appendUnique(p.ReadOnly, d)
	}
	return p
}

// readOnlyUnder adds to ro the files that stay read-only inside the
// writable roots: git's hooks and config of the workspace ws and its git
// dirs, and the shell and git startup files in home.
func readOnlyUnder(ro []string, ws string, gitDirs []string, home string, roots []string) []string {
	var cands []string
	if ws != "" {
		for _, g := range append([]string{filepath.Join(ws, ".git")}, gitDirs...) {
			cands = append(cands, filepath.Join(g, "hooks"), filepath.Join(g, "config"))
		}
	}
	if home != "" {
		for _, f := range secrets.StartupFiles {
			cands = append(cands, filepath.Join(home, f))
		}
	}
	for _, r := range cands {
		if _, err := os.Lstat(r); err == nil && underAny(real(r), roots) {
			ro = appendUnique(ro, real(r))
		}
	}
	return ro
}

// SecretStores are the secret stores that exist on this machine (the
// user's ~/.ssh, ~/.aws, ~/.gnupg, ~/.netrc and the like, and the system's
// when aci runs as root), symlinks resolved.
func SecretStores() []string {
	home, _ := os.UserHomeDir()
	var hidden, out []string
	if home != "" {
		for _, s := range secrets.HomeStores {
			hidden = append(hidden, filepath.Join(home, s))
		}
	}
	hidden = append(hidden, secrets.SystemStorePaths()...)
	for _, c := range controlSockets {
		if strings.Contains(c, "%d") {
			c = fmt.Sprintf(c, os.Getuid())
		}
		hidden = append(hidden, c)
	}
	if home != "" {
		hidden = append(hidden, filepath.Join(home, ".docker", "run", "docker.sock"), filepath.Join(home, ".colima", "default", "docker.sock"))
	}
	// aci's own transcripts and input history (other sessions' talk) and
	// its settings (a command must not widen its own network).
	hidden = append(hidden, dirs.Private()...)
	for _, h := range hidden {
		if _, err := os.Lstat(h); err == nil {
			out = appendUnique(out, real(h))
		}
	}
	return out
}

// real resolves symlinks in path, keeping the path when it cannot.
func real(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

func appendDir(list []string, d string) []string {
	if d == "" || !filepath.IsAbs(d) {
		return list
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return list
	}
	return appendUnique(list, real(d))
}

func appendUnique(list []string, p string) []string {
	if slices.Contains(list, p) {
		return list
	}
	return append(list, p)
}

// WorkspaceRoot is the workspace of a session started in workdir: its git
// root, or workdir itself outside a repository (symlinks resolved).
func WorkspaceRoot(workdir string) string {
	ws := real(workdir)
	if root := gitRoot(ws); root != "" {
		return root
	}
	return ws
}

// gitRoot is the nearest directory at or above dir holding .git, or "".
func gitRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// gitDirs are the directories outside root that git writes for root: a
// worktree's or submodule's .git file points to its git dir, which points
// to the common dir of the main repository.
func gitDirs(root string) []string {
	b, err := os.ReadFile(filepath.Join(root, ".git"))
	if err != nil {
		return nil // a directory (the usual case) or no .git: nothing outside
	}
	gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return nil
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(root, gd)
	}
	var out []string
	out = appendDir(out, gd)
	if c, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gd, cd)
		}
		out = appendDir(out, cd)
	}
	return out
}
