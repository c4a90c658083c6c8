package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A git folder a command made (git init or clone in a subfolder, a .git
// file pointing somewhere) has no saved copy to go back to: it is kept,
// but without what would run programs when the person or an editor runs
// git there: its hooks are moved out of the workspace, and its config
// keeps only the inert settings of gitconf's allow-list (seal_config.go).

// sealNew cleans the git folders the index found since its first walk
// that the seal does not keep yet (made while a command ran), and starts
// keeping them; it says what it took out.
func (s *Sandbox) sealNew() []string {
	x := s.indexed()
	if x == nil {
		return nil
	}
	x.scanSkipped(true)
	var notes []string
	late := map[string]bool{}
	for _, e := range x.lateGits() {
		late[e] = true
	}
	for _, e := range x.gitEntries() {
		s.seal.mu.Lock()
		_, known := s.seal.roots[e]
		s.seal.mu.Unlock()
		if known {
			continue
		}
		// A kept repository moved here with a folder above it: the same
		// one, whose parts must still be as saved (seal_moved.go).
		if moved, n := s.sealMoved(e); moved {
			notes = append(notes, n...)
			continue
		}
		if !late[e] {
			continue
		}
		g := e
		if fi, err := os.Lstat(e); err != nil {
			continue
		} else if !fi.IsDir() {
			if g = pointedGitDir(e); g == "" {
				continue
			}
		}
		var taken []string
		for _, d := range []string{g, commonDir(g)} {
			// A kept one (a worktree added to the person's repository
			// names it) is judged against its saved copy instead.
			if d != "" && !s.sealKeeps(d) {
				taken = append(taken, s.cleanGitDir(d)...)
			}
		}
		if len(taken) > 0 {
			notes = append(notes, s.relName(e)+" (a git folder the command made; "+strings.Join(taken, "; ")+"): "+whyGitConfig)
		}
	}
	if len(notes) > 0 || len(late) > 0 {
		s.sealBeginRoots(s.sealRoots(nil), false, time.Now())
	}
	return notes
}

// commonDir is the folder a git folder's commondir file names, or "".
func commonDir(g string) string {
	b, err := os.ReadFile(filepath.Join(g, "commondir"))
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(g, c)
	}
	if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
		return ""
	}
	return real(c)
}

// sealKeeps reports whether git folder g's config is kept already.
func (s *Sandbox) sealKeeps(g string) bool {
	s.seal.mu.Lock()
	defer s.seal.mu.Unlock()
	_, ok := s.seal.roots[filepath.Join(g, "config")]
	return ok
}

// cleanGitDir moves g's hooks (all but git's own samples) out of the
// workspace and keeps only the allowed settings of its config files, and
// does the same for the git folders inside it (submodules', linked
// worktrees'); it lists what it took.
func (s *Sandbox) cleanGitDir(g string) []string {
	var taken, hooks []string
	dir := filepath.Join(g, "hooks")
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".sample") {
				continue
			}
			if s.moveOut(filepath.Join(dir, e.Name())) {
				hooks = append(hooks, e.Name())
			}
		}
	}
	if len(hooks) > 0 {
		taken = append(taken, s.relName(dir)+": moved out "+strings.Join(hooks, ", "))
	}
	for _, cfg := range []string{filepath.Join(g, "config"), filepath.Join(g, "config.worktree")} {
		if t := s.cleanConfig(cfg); t != "" {
			taken = append(taken, t)
		}
	}
	for _, sub := range []string{"modules", "worktrees"} {
		for _, in := range innerGitDirs(filepath.Join(g, sub), 3) {
			taken = append(taken, s.cleanGitDir(in)...)
		}
	}
	return taken
}
