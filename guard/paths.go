package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aci-dev/aci/tools/secrets"
)

// checkPath judges path against the anchors e.
func checkPath(env *guardPaths, path string, write bool) Verdict {
	p := path
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = env.homeLex + p[1:]
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(env.workLex, p)
	}
	p = filepath.Clean(p)
	real := guardResolve(p, true)
	for _, q := range []string{p, real} {
		if why := env.fileSecretWhy(q); why != "" {
			return Verdict{Dangerous: true, Reason: why + ": " + path, Part: path}
		}
	}
	if why := env.hardLinkWhy(real); why != "" {
		return Verdict{Dangerous: true, Reason: why + ": " + path, Part: path}
	}
	if !write {
		return Verdict{}
	}
	switch env.zoneOf(real) {
	case zoneWork, zoneRoot:
		return Verdict{}
	case zoneGit:
		return Verdict{Dangerous: true, Reason: "writes into .git: " + path, Part: path}
	}
	return Verdict{Dangerous: true, Reason: "writes outside the workspace: " + real, Part: path}
}

// guardPaths holds the anchors that paths are judged against.
type guardPaths struct {
	work    string // workspace, absolute, symlinks resolved; "" for a remote host
	workLex string // workspace, absolute and clean as given
	home    string // resolved $HOME
	homeLex string
	scratch []string // temp roots; only paths strictly below them are scratch
	tmp     string   // the first temp root, for $TMPDIR and mktemp
}

// guardResolve resolves symlinks component by component, so that dangling
// links and paths that do not exist yet still resolve to where a write would
// land. followLast=false keeps the final component (rm removes a link, not
// its target).
func guardResolve(p string, followLast bool) string {
	p = filepath.Clean(p)
	if !filepath.IsAbs(p) {
		return p
	}
	return guardResolveComps("/", strings.Split(strings.TrimPrefix(p, "/"), "/"), followLast, 0)
}

// real is guardResolve with a shortcut: paths in the workspace start from
// its already resolved root, which saves most of the syscalls.
func (e *guardPaths) real(p string, followLast bool) string {
	p = filepath.Clean(p)
	if e.work != "" && strings.HasPrefix(p, e.workLex+"/") {
		rest := strings.TrimPrefix(p, e.workLex+"/")
		return guardResolveComps(e.work, strings.Split(rest, "/"), followLast, 0)
	}
	return guardResolve(p, followLast)
}

// guardResolveComps walks comps down from cur, a resolved directory.
func guardResolveComps(cur string, comps []string, followLast bool, hops int) string {
	for i, comp := range comps {
		if comp == "" {
			continue
		}
		next := filepath.Join(cur, comp)
		if i == len(comps)-1 && !followLast {
			return next
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{cur}, comps[i:]...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		t, err := os.Readlink(next)
		if err != nil || hops >= 40 {
			return filepath.Join(append([]string{next}, comps[i+1:]...)...)
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(cur, t)
		}
		np := filepath.Clean(filepath.Join(append([]string{t}, comps[i+1:]...)...))
		return guardResolveComps("/", strings.Split(strings.TrimPrefix(np, "/"), "/"), followLast, hops+1)
	}
	return cur
}

// pathWithin reports whether p is dir or below it.
func pathWithin(p, dir string) bool {
	if dir == "" {
		return false
	}
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

type pathZone int

const (
	zoneOutside  pathZone = iota
	zoneWork              // inside the workspace
	zoneRoot              // the workspace itself
	zoneAncestor          // a directory holding the workspace
	zoneGit               // inside a .git directory of the workspace
	zoneScratch           // strictly below a temp root
	zoneHome              // the home directory or one holding it
)

// zoneOf classifies an absolute, resolved path.
func (e *guardPaths) zoneOf(p string) pathZone {
	if e.work != "" {
		switch {
		case p == e.work:
			return zoneRoot
		case pathWithin(p, e.work):
			rel := strings.TrimPrefix(p, strings.TrimSuffix(e.work, "/")+"/")
			for _, c := range strings.Split(rel, "/") {
				if c == ".git" {
					return zoneGit
				}
			}
			return zoneWork
		case pathWithin(e.work, p):
			return zoneAncestor
		}
	}
	if e.homeLex != "/" {
		if pathWithin(e.home, p) || pathWithin(e.homeLex, p) {
			return zoneHome
		}
		// A home below /tmp (tests, containers) is still a home, not scratch.
		if pathWithin(p, e.home) || pathWithin(p, e.homeLex) {
			return zoneOutside
		}
	} else if p == "/" {
		return zoneHome
	}
	for _, s := range e.scratch {
		// A workspace that itself lives under a temp root (a clone in /tmp)
		// makes its top folder there project space, not scratch.
		// A path whose top folder there exists on the machine is the
		// machine's, not scratch (onMachine).
		if p != s && pathWithin(p, s) && (e.work == "" || topBelow(s, p) != topBelow(s, e.work)) && !inRepository(s, p) && !onMachine(s, p) {
			return zoneScratch
		}
	}
	return zoneOutside
}

// topBelow is the first path element of p below root, or "" when p is not
// strictly below root.
func topBelow(root, p string) string {
	rest, ok := strings.CutPrefix(p, strings.TrimSuffix(root, "/")+"/")
	if !ok || rest == "" {
		return ""
	}
	top, _, _ := strings.Cut(rest, "/")
	return top
}

// isScratchRoot reports a temp root itself (/tmp), which is not scratch.
func (e *guardPaths) isScratchRoot(p string) bool { return slices.Contains(e.scratch, p) }

// relWork is p relative to the workspace, for artifact checks.
func (e *guardPaths) relWork(p string) string {
	if p == e.work {
		return "."
	}
	return strings.TrimPrefix(p, strings.TrimSuffix(e.work, "/")+"/")
}

// isBuildArtifact reports whether a workspace-relative path lies in, or is, a
// regenerable build artifact, which deleting loses nothing.
func isBuildArtifact(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if artifactDirs()[c] {
			return true
		}
		for pat := range artifactFiles() {
			if ok, _ := filepath.Match(pat, c); ok {
				return true
			}
		}
	}
	return false
}

// homesOf lists the home directories p may be in: the user's, root's, and
// other users' (/home/x, /Users/x), since their keys are secrets too.
func (e *guardPaths) homesOf(p string) []string {
	out := []string{e.homeLex, e.home, "/root"}
	for _, base := range []string{"/home/", "/Users/"} {
		if rest, ok := strings.CutPrefix(p, base); ok {
			name, _, _ := strings.Cut(rest, "/")
			if name != "" {
				out = append(out, base+name)
			}
		}
	}
	return out
}

// secretWhy names the secret p is, or holds when dirs is set (an archive or
// recursive copy of ~/.ssh takes the keys with it); "" when p is no secret.
func (e *guardPaths) secretWhy(p string, dirs bool) string {
	p = filepath.Clean(p)
	if secrets.IsSystemSecret(p) {
		return "reads a system secret"
	}
	if strings.HasPrefix(p, "/proc/") && strings.HasSuffix(p, "/environ") {
		return "reads another process's environment"
	}
	for _, h := range e.homesOf(p) {
		if h == "" || h == "/" || !pathWithin(p, h) {
			continue
		}
		if p == h {
			if dirs {
				return "reads the home directory with its keys"
			}
			continue
		}
		rel := strings.TrimPrefix(p, h+"/")
		if why := secretHomeRel(p, rel, dirs); why != "" {
			return why
		}
	}
	return ""
}

// secretHomeRel judges rel, relative to a home: what lies in one of the
// person's secret stores (secrets.HomeStores), and with dirs a folder
// holding one. In ~/.ssh only the private keys are: its config,
// known_hosts and public keys are read by ordinary commands (the
// sandbox hides the folder whole all the same).
func secretHomeRel(abs, rel string, dirs bool) string {
	store := secrets.HomeStore(rel)
	switch {
	case store == "":
		if dirs && secrets.HoldsHomeStore(rel) {
			return "reads a directory holding secrets"
		}
		return ""
	case store == ".gnupg":
		return "reads GnuPG private keys"
	case store == ".ssh" && rel == store:
		if dirs {
			return "reads a directory holding secrets"
		}
		return ""
	case store == ".ssh":
		base := filepath.Base(rel)
		if strings.HasSuffix(base, ".pub") {
			return ""
		}
		if strings.HasPrefix(base, "id_") || strings.HasSuffix(base, ".pem") || strings.HasSuffix(base, ".key") ||
			secrets.SecretFile(base) != secrets.NotSecret {
			return "reads a private key"
		}
		return ""
	case rel == store && !dirs && isDir(abs):
		return "" // its names, not its content (ls ~/.aws)
	}
	return "reads credentials (~/" + store + ")"
}

// inRepository reports whether p, or a folder between root and p, is a git
// work tree: a project kept under /tmp is not scratch.
func inRepository(root, p string) bool {
	for d := p; d != root && pathWithin(d, root); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return false
}

// isDir reports an existing folder at p, links followed.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
