package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// A git folder a command made (git init or clone in a subfolder, a .git
// file pointing somewhere) has no saved copy to go back to: it is kept,
// but without what would run programs when the person or an editor runs
// git there: its hooks are moved out of the workspace and the config
// lines that name a program are taken out.

// programKeys match config keys (as git config --list prints them:
// section and key lower case) whose value git runs, or that include
// another file.
var programKeys = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|alternaterefscommand)` +
		`|sequence\.editor|diff\.external|diff\..+\.(command|textconv)|filter\..+\.(clean|smudge|process)|merge\..+\.driver` +
		`|credential(\..+)?\.helper|gpg(\..+)?\.program|pager\..+|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack)` +
		`|include\.path|includeif\..+\.path|interactive\.difffilter|web\.browser|browser\..+\.(cmd|path)|(man|mergetool|difftool)\..+\.(cmd|path)` +
		`|sendemail\..+|submodule\..+\.update|alias\..+)$`)
})

// sealNew cleans the git folders the index found since its first walk
// that the seal does not keep yet (made while a command ran), and starts
// keeping them; it says what it took out.
func (s *Sandbox) sealNew() []string {
	x := s.indexed()
	if x == nil {
		return nil
	}
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
			if d != "" {
				taken = append(taken, s.cleanGitDir(d)...)
			}
		}
		if len(taken) > 0 {
			notes = append(notes, s.relName(e)+" (a git folder the command made; taken out: "+strings.Join(taken, ", ")+"): "+whyGitConfig)
		}
	}
	if len(notes) > 0 || len(late) > 0 {
		s.sealBeginRoots(s.sealRoots(nil), false)
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

// cleanGitDir moves g's hooks (all but git's own samples) out of the
// workspace and takes the program-running keys out of its config; it
// lists what it took.
func (s *Sandbox) cleanGitDir(g string) []string {
	var taken []string
	hooks := filepath.Join(g, "hooks")
	if ents, err := os.ReadDir(hooks); err == nil {
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".sample") {
				continue
			}
			if s.moveOut(filepath.Join(hooks, e.Name())) {
				taken = append(taken, "hooks/"+e.Name())
			}
		}
	}
	for _, cfg := range []string{filepath.Join(g, "config"), filepath.Join(g, "config.worktree")} {
		if _, err := os.Lstat(cfg); err != nil {
			continue
		}
		out, err := exec.Command("git", "config", "--file", cfg, "--null", "--list").Output()
		if err != nil {
			// Not one git can read: nothing of it can be trusted.
			if s.moveOut(cfg) {
				taken = append(taken, filepath.Base(cfg))
			}
			continue
		}
		seen := map[string]bool{}
		for _, rec := range strings.Split(string(out), "\x00") {
			key, _, _ := strings.Cut(rec, "\n")
			if key == "" || seen[key] || !programKeys().MatchString(strings.ToLower(key)) {
				continue
			}
			seen[key] = true
			if exec.Command("git", "config", "--file", cfg, "--unset-all", key).Run() == nil {
				taken = append(taken, key)
			}
		}
	}
	return taken
}
