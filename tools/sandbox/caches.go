package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// Outside the workspace, a contained command writes only where nothing
// it leaves can run outside the sandbox later (the allow-list below):
//
//   - the session's own /tmp and /var/tmp (tmp.go), removed when aci
//     exits, and /dev/shm, a tmpfs of its own under bwrap;
//   - the person's build and package caches, seen copy-on-write
//     (Policy.Layered): a command reads them as they are, and what it
//     writes there stays in the session's folder, gone when aci exits.
//     The person's next build, shell or prompt never sees it.
//
// Everything else is read-only, and the folders on PATH stay read-only
// even inside the places above. Where a cache cannot be layered (a
// command with a sandbox of its own, Landlock), it is read-only and the
// tools that cannot work with a read-only cache are pointed at one in the
// session's /tmp (cacheEnv).

// cacheDirs are home-relative build and package caches: layered.
var cacheDirs = []string{
	".cache", "go/pkg/mod", ".npm", ".cargo/registry", ".cargo/git", ".m2/repository",
	".gradle/caches", ".gradle/wrapper", ".yarn", ".pnpm-store", ".local/share/pnpm",
	".bun/install/cache", ".nuget/packages", ".ivy2/cache", ".sbt", ".deno", ".cpan",
}

// cacheVars name caches where the person moved them: layered too.
// CARGO_HOME is a tool home (config, bin): only its registry and git are.
var cacheVars = []string{"GOCACHE", "GOMODCACHE", "XDG_CACHE_HOME", "npm_config_cache", "PIP_CACHE_DIR", "CARGO_HOME", "GOPATH"}

// cacheRoots are the person's caches that exist (symlinks resolved).
func cacheRoots(home string) []string {
	var cands []string
	if home != "" {
		for _, c := range cacheDirs {
			cands = append(cands, filepath.Join(home, c))
		}
	}
	for _, v := range cacheVars {
		d := os.Getenv(v)
		switch v {
		case "CARGO_HOME":
			if d != "" {
				cands = append(cands, filepath.Join(d, "registry"), filepath.Join(d, "git"))
			}
		case "GOPATH":
			if d != "" {
				cands = append(cands, filepath.Join(strings.Split(d, string(os.PathListSeparator))[0], "pkg", "mod"))
			}
		default:
			cands = append(cands, d)
		}
	}
	var dirs []string
	for _, c := range cands {
		dirs = appendDir(dirs, c)
	}
	return dirs
}

// layerable keeps the caches that can be layered, the outermost of
// nested ones: not the workspace's own folders (writable anyway), not
// one holding the workspace, a secret store or aci's own folders (an
// overlay would show what bwrap covers below it; a cache inside it may
// be layered instead), not "/" and not a path overlayfs cannot name.
func layerable(caches, workspace, hidden []string) []string {
	var ok []string
	for _, c := range caches {
		if c == "/" || strings.ContainsAny(c, ",:\\") || underAny(c, workspace) {
			continue
		}
		covers := false
		for _, p := range append(append([]string{}, workspace...), hidden...) {
			if within(p, c) {
				covers = true
				break
			}
		}
		if !covers {
			ok = appendUnique(ok, c)
		}
	}
	var out []string
	for _, c := range ok {
		nested := false
		for _, o := range ok {
			if o != c && within(c, o) {
				nested = true
				break
			}
		}
		if !nested {
			out = append(out, c)
		}
	}
	return out
}

// pathDirsUnder are the folders on PATH that lie in roots (the workspace,
// the caches): read-only to commands, since what is planted there runs
// in place of the command the person or a tool names later. A folder
// that holds a workspace root is left out (making the workspace
// read-only is not the point).
func pathDirsUnder(pathList string, roots, workspace []string) []string {
	var out []string
	for _, d := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(d) {
			continue
		}
		if _, err := os.Stat(d); err != nil {
			continue
		}
		d = real(d)
		if !underAny(d, roots) {
			continue
		}
		holds := false
		for _, w := range workspace {
			if within(w, d) {
				holds = true
				break
			}
		}
		if !holds {
			out = appendUnique(out, d)
		}
	}
	return out
}

// cacheEnv points the tools that cannot work with a read-only cache at
// one in base (in the session's /tmp) for a command whose caches are not
// layered: Go's build cache and npm's. The others read theirs as it is.
func cacheEnv(base string) [][2]string {
	return [][2]string{
		{"GOCACHE", filepath.Join(base, "go-build")},
		{"npm_config_cache", filepath.Join(base, "npm")},
	}
}

// oneShotCacheBase is where cacheEnv's caches live under bwrap: the
// session's own /tmp, as the command sees it.
const oneShotCacheBase = "/tmp/.aci-cache"
