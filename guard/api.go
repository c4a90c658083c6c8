package guard

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/tools/secrets"
)

// Env is everything the guard knows about the world outside the command:
// it reads no process-wide state itself, so tests and callers decide.
type Env struct {
	// Home is the user's home directory; "" means unknown (then "~" is
	// treated as the root, which nothing may delete).
	Home string
	// TempDirs are scratch roots (/tmp, $TMPDIR): paths strictly below
	// them are scratch space.
	TempDirs []string
	// Cwd is the base for a relative workdir; "" means "/".
	Cwd string
	// Secrets are values that must not leave the machine (the API key):
	// a command that spells one out is dangerous. Values shorter than 8
	// bytes are ignored (too likely to occur by chance).
	Secrets []string
}

// EnvFromOS is the one place that reads the process's HOME, temp dir and
// working directory, for the wiring in main.
func EnvFromOS() Env {
	home := os.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	cwd, _ := os.Getwd()
	tmps := []string{"/tmp", "/var/tmp"}
	if t := os.TempDir(); !slices.Contains(tmps, t) {
		tmps = append(tmps, t)
	}
	return Env{Home: home, TempDirs: tmps, Cwd: cwd}
}

// Guard judges commands and file accesses against one Env. It is cheap to
// build and safe for concurrent use.
type Guard struct {
	env     Env
	secrets []string

	mu    sync.Mutex
	cache map[string]cachedGuardPaths
}

type cachedGuardPaths struct {
	env *guardPaths
	at  time.Time
}

// guardPathsTTL bounds how long resolved anchors are reused: resolving
// costs several syscalls and most calls share a workdir, but a changed
// symlink must be picked up soon.
const guardPathsTTL = 2 * time.Second

// New returns a guard for env.
func New(env Env) *Guard {
	env.TempDirs = slices.Clone(env.TempDirs) // the caller may reuse its slice
	g := &Guard{env: env}
	for _, s := range env.Secrets {
		if len(s) < 8 {
			continue
		}
		// The value as typed, and as the common encodings would carry it.
		g.secrets = append(g.secrets, s,
			strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(s)), "="),
			strings.TrimRight(base64.URLEncoding.EncodeToString([]byte(s)), "="),
			hex.EncodeToString([]byte(s)))
		if q := url.QueryEscape(s); q != s {
			g.secrets = append(g.secrets, q)
		}
	}
	return g
}

// Check judges a shell command line before it runs. It parses the command
// (Bash dialect) and looks at everything that would execute, including
// nested scripts given to shells, eval, xargs, find -exec and interpreter
// one-liners. It never runs anything. What it cannot resolve where it
// matters (an unknown variable in a delete, a command name from a
// substitution) counts as dangerous.
func (g *Guard) Check(command, workdir string) (v Verdict) {
	defer func() {
		if r := recover(); r != nil {
			if guardStrict.Load() {
				panic(r)
			}
			v = Verdict{Dangerous: true, Reason: "the guard could not analyse this command", Part: command}
		}
	}()
	if why := hiddenCharWhy(command); why != "" {
		return Verdict{Dangerous: true, Reason: "command " + why, Part: command}
	}
	if len(command) > guardMaxInput {
		return Verdict{Dangerous: true, Reason: "command is too long to check", Part: command}
	}
	if g.containsSecret(command) {
		return Verdict{Dangerous: true, Reason: "command contains a secret value (the API key)", Part: command}
	}
	return checkCommand(g.paths(workdir), command)
}

// CheckPath judges opening path through a file window, for reading or
// writing. Relative paths are taken against workdir and symlinks are
// resolved (the longest existing prefix, since the file may not exist yet),
// so that a write cannot walk around the guard through a link or "..".
func (g *Guard) CheckPath(path, workdir string, write bool) (v Verdict) {
	defer func() {
		if r := recover(); r != nil {
			if guardStrict.Load() {
				panic(r)
			}
			v = Verdict{Dangerous: true, Reason: "the guard could not judge this path", Part: path}
		}
	}()
	if path == "" {
		return Verdict{}
	}
	if why := hiddenCharWhy(path); why != "" {
		return Verdict{Dangerous: true, Reason: "path " + why, Part: path}
	}
	return checkPath(g.paths(workdir), path, write)
}

// CheckURL judges a URL about to be fetched (web_fetch): a secret value
// from the Env, in any common encoding, or a query parameter named like a
// credential carrying a value would leave the machine in the request.
func (g *Guard) CheckURL(rawURL string) Verdict {
	if g.containsSecret(rawURL) {
		return Verdict{Dangerous: true, Reason: "the URL carries a secret value (the API key)", Part: rawURL}
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return Verdict{}
	}
	for k, vs := range u.Query() {
		for _, v := range vs {
			if len(v) >= 12 && secrets.IsCredentialVar(k) && !paginationParam(k) {
				return Verdict{Dangerous: true, Reason: "the URL sends a credential-like value in " + k, Part: k + "=" + url.QueryEscape(v)}
			}
		}
	}
	return Verdict{}
}

// paginationParam reports query parameters named like tokens that are
// not credentials (pageToken, next_token, max_tokens).
func paginationParam(k string) bool {
	l := strings.ToLower(k)
	for _, w := range []string{"page", "next", "cursor", "continuation", "sync", "max", "count", "limit", "csrf"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// containsSecret reports any of the Env's secret values in s.
func (g *Guard) containsSecret(s string) bool {
	for _, x := range g.secrets {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// paths returns the resolved anchors for workdir, cached briefly.
func (g *Guard) paths(workdir string) *guardPaths {
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if ce, ok := g.cache[workdir]; ok && now.Sub(ce.at) < guardPathsTTL {
		return ce.env
	}
	if g.cache == nil || len(g.cache) >= 16 {
		g.cache = map[string]cachedGuardPaths{}
	}
	e := g.buildPaths(workdir)
	g.cache[workdir] = cachedGuardPaths{env: e, at: now}
	return e
}

func (g *Guard) buildPaths(workdir string) *guardPaths {
	base := g.env.Cwd
	if !filepath.IsAbs(base) {
		base = "/"
	}
	if workdir == "" {
		workdir = base
	}
	if !filepath.IsAbs(workdir) {
		workdir = filepath.Join(base, workdir)
	}
	e := &guardPaths{workLex: filepath.Clean(workdir)}
	e.work = guardResolve(e.workLex, true)
	if e.work == "/" {
		e.work = "" // a workspace of / would make every path a workspace path
	}
	home := g.env.Home
	if home == "" || !filepath.IsAbs(home) {
		home = "/" // unknown home: treat "~" as the root, which nothing may delete
	}
	e.homeLex = filepath.Clean(home)
	e.home = guardResolve(e.homeLex, true)
	for _, t := range g.env.TempDirs {
		if t == "" || !filepath.IsAbs(t) {
			continue
		}
		if e.tmp == "" {
			e.tmp = filepath.Clean(t)
		}
		for _, v := range []string{filepath.Clean(t), guardResolve(filepath.Clean(t), true)} {
			if v != "/" && !slices.Contains(e.scratch, v) {
				e.scratch = append(e.scratch, v)
			}
		}
	}
	if e.tmp == "" {
		e.tmp = "/tmp"
	}
	return e
}
