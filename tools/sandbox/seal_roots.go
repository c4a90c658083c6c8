package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// What the seal keeps (seal.go): the exec-relevant parts of every git
// folder of the workspace, and the protected files present.

// sealRoots lists what is kept for the workspace: every git folder's
// exec-relevant parts (the root's, a worktree's git folders, the nested
// repositories the index found, and their submodules' and worktrees'
// folders) and the protected paths present.
func (s *Sandbox) sealRoots(protected []string) []sealRoot {
	if len(s.policy.Workspace) == 0 {
		return nil
	}
	ws := s.policy.Workspace[0]
	entries := []string{filepath.Join(ws, ".git")}
	if x := s.indexed(); x != nil {
		entries = append(entries, x.gitEntries()...)
	}
	var out []sealRoot
	var gitDirs []string
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e] {
			continue
		}
		seen[e] = true
		fi, err := os.Lstat(e)
		switch {
		case err == nil && fi.Mode().IsRegular():
			out = append(out, sealRoot{path: e, deep: true, why: whyGitFile})
			if gd := pointedGitDir(e); gd != "" && underAny(gd, s.policy.WritableRoots()) {
				gitDirs = append(gitDirs, gd)
			}
		case err == nil && fi.IsDir():
			out = append(out, sealRoot{path: e, why: whyGitDir})
			gitDirs = append(gitDirs, e)
		default:
			// Gone: kept as it was saved, if it was, so that one made
			// again in its place is put back.
			s.seal.mu.Lock()
			if r, ok := s.seal.roots[e]; ok {
				out = append(out, r)
			}
			s.seal.mu.Unlock()
		}
	}
	gitDirs = append(gitDirs, s.policy.Workspace[1:]...)
	done := map[string]bool{}
	for len(gitDirs) > 0 {
		g := gitDirs[0]
		gitDirs = gitDirs[1:]
		if done[g] {
			continue
		}
		done[g] = true
		out = append(out,
			sealRoot{path: filepath.Join(g, "config"), deep: true, why: whyGitConfig},
			sealRoot{path: filepath.Join(g, "config.worktree"), deep: true, why: whyGitConfig},
			sealRoot{path: filepath.Join(g, "hooks"), deep: true, why: whyGitHooks},
			sealRoot{path: filepath.Join(g, "info", "attributes"), deep: true, why: whyGitAttrs},
			sealRoot{path: filepath.Join(g, "commondir"), deep: true, why: whyGitCommon})
		for _, cfg := range []string{filepath.Join(g, "config"), filepath.Join(g, "config.worktree")} {
			for _, inc := range configIncludes(cfg) {
				if underAny(inc, s.policy.WritableRoots()) {
					out = append(out, sealRoot{path: inc, deep: true, why: whyGitConfig})
				}
			}
		}
		// Submodules' and linked worktrees' git folders live inside.
		for _, sub := range []string{"modules", "worktrees"} {
			gitDirs = append(gitDirs, innerGitDirs(filepath.Join(g, sub), 3)...)
		}
	}
	for _, p := range protected {
		p = strings.TrimSuffix(p, "/")
		if strings.Contains(filepath.Base(p), "*") {
			continue
		}
		if _, err := os.Lstat(p); err == nil && within(p, ws) {
			out = append(out, sealRoot{path: p, deep: true, why: protectedWhy(ws, ws, p), bound: true})
		}
	}
	return out
}

// innerGitDirs are the git folders below dir (a modules or worktrees
// folder): those holding HEAD, depth levels down at most (a submodule's
// name may have slashes).
func innerGitDirs(dir string, depth int) []string {
	ents, err := os.ReadDir(dir)
	if err != nil || depth == 0 {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if _, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil {
			out = append(out, p)
			continue
		}
		out = append(out, innerGitDirs(p, depth-1)...)
	}
	return out
}

// pointedGitDir is the folder a .git file points to ("gitdir: ..."), or "".
func pointedGitDir(file string) string {
	b, err := os.ReadFile(file)
	if err != nil || len(b) > 4096 {
		return ""
	}
	gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(file), gd)
	}
	if fi, err := os.Stat(gd); err != nil || !fi.IsDir() {
		return ""
	}
	return real(gd)
}

// noteGit records a .git entry the index met (under x.mu); late says the
// first walk is done.
func (x *protectIndex) noteGit(p string, d fs.DirEntry, late bool) {
	x.noteSkipped(p, d)
	if d.Name() != ".git" {
		return
	}
	if x.gits == nil {
		x.gits = map[string]bool{}
	}
	if _, ok := x.gits[p]; !ok {
		made := false
		if fi, err := os.Lstat(p); late && err == nil {
			made = x.madeWhileBusy(ctime(fi))
		}
		x.gits[p] = made
	}
}

// lateGits are the .git entries the index met after its first walk.
func (x *protectIndex) lateGits() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []string
	for p, late := range x.gits {
		if late {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// gitEntries are the .git entries the index met, sorted.
func (x *protectIndex) gitEntries() []string { return x.sorted(&x.gits) }

// presentProtected are the protected paths the index found.
func (x *protectIndex) presentProtected() []string { return x.sorted(&x.found) }

// maxSealedBinds bounds the .git entries bound in place (three mounts
// each): a workspace of many vendored repositories does not pay a mount
// per repository and command.
const maxSealedBinds = 32

// sealedEntries are the workspace's .git entries known now (the root's,
// and the nested ones the index found), for the binds that keep them in
// place (sealBindArgs).
func (s *Sandbox) sealedEntries() []string {
	if len(s.policy.Workspace) == 0 {
		return nil
	}
	out := []string{filepath.Join(s.policy.Workspace[0], ".git")}
	if x := s.indexed(); x != nil && s.tmpDir != "" {
		s.protectedPresent(nil)
		for _, e := range x.gitEntries() {
			if len(out) >= maxSealedBinds {
				break // the rest are kept by the after-check alone
			}
			out = appendUnique(out, e)
		}
	}
	return out
}

// sealedPath reports a path that is a .git entry or lies in one: what a
// refused rename or removal there was about (Explain).
func sealedPath(path string) bool {
	return filepath.Base(path) == ".git" || strings.Contains(path, "/.git/") || strings.HasPrefix(path, ".git/")
}

// configIncludes are the files a git config file includes (include.path,
// includeIf.*.path), resolved as git does: relative to the including
// file, ~ for the home folder. One in the workspace must be kept too: git
// obeys it like the config itself.
func configIncludes(cfg string) []string {
	b, err := os.ReadFile(cfg)
	if err != nil || len(b) > sealMaxFile {
		return nil
	}
	var out []string
	inInclude := false
	for _, line := range strings.Split(string(b), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			sec := strings.ToLower(strings.TrimLeft(l, "[ \t"))
			inInclude = strings.HasPrefix(sec, "include]") || strings.HasPrefix(sec, "include ") || strings.HasPrefix(sec, "includeif")
			continue
		}
		key, val, ok := strings.Cut(l, "=")
		if !inInclude || !ok || !strings.EqualFold(strings.TrimSpace(key), "path") {
			continue
		}
		p := strings.Trim(strings.TrimSpace(val), `"`)
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			home, _ := os.UserHomeDir()
			p = filepath.Join(home, rest)
		} else if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(cfg), p)
		}
		out = append(out, realAbove(filepath.Clean(p)))
	}
	return out
}
