package sandbox

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aci-dev/aci/tools/gitconf"
)

// How the seal judges a git config file a command made or changed: only
// the settings on gitconf's allow-list of inert ones stay (seal.go). What
// was there before the command (the person's own settings) stays too.

// parseTimeout bounds one git config read.
const parseTimeout = 10 * time.Second

func parseConfig(data []byte) ([]gitconf.Entry, error) {
	ctx, cancel := context.WithTimeout(context.Background(), parseTimeout)
	defer cancel()
	return gitconf.Parse(ctx, data)
}

// gitPlace is where config file cfg is judged: its git folder, and the
// workspace a work tree it names must lie in.
func (s *Sandbox) gitPlace(cfg string) gitconf.Place {
	return gitconf.Place{GitDir: filepath.Dir(cfg), Workspace: s.policy.Workspace}
}

// takenList is what a result says of entries taken out (and put back).
func (s *Sandbox) takenList(cfg string, taken, putBack []gitconf.Taken) string {
	var parts []string
	for _, t := range taken {
		parts = append(parts, t.String())
	}
	out := s.relName(cfg) + ": taken out " + strings.Join(parts, "; ")
	if len(taken) == 0 {
		out = s.relName(cfg) + ":"
	}
	if len(putBack) > 0 {
		parts = parts[:0]
		for _, t := range putBack {
			parts = append(parts, t.String())
		}
		out += "; put back (the command removed them) " + strings.Join(parts, "; ")
	}
	return out
}

// cleanConfig keeps only the allowed settings of cfg, a config file of a
// git folder the command made; it says what it took out, "" for nothing.
// A file git cannot read, or not a plain file, is moved out whole.
func (s *Sandbox) cleanConfig(cfg string) string {
	fi, err := os.Lstat(cfg)
	if err != nil {
		return ""
	}
	var data []byte
	if fi.Mode().IsRegular() && fi.Size() <= sealMaxFile {
		data, err = os.ReadFile(cfg)
	} else {
		err = fs.ErrInvalid
	}
	var entries []gitconf.Entry
	if err == nil {
		entries, err = parseConfig(data)
	}
	if err != nil {
		if s.moveOut(cfg) {
			return s.relName(cfg) + ": moved out whole (not a config file git reads plainly)"
		}
		return s.relName(cfg) + ": could not be moved out (not a config file git reads plainly)"
	}
	kept, taken := gitconf.Judge(entries, s.gitPlace(cfg))
	if len(taken) == 0 {
		return ""
	}
	if !writeAtomic(cfg, gitconf.Render(kept), fi.Mode().Perm()) && !s.moveOut(cfg) {
		return s.relName(cfg) + ": could not be cleaned or moved out"
	}
	return s.takenList(cfg, taken, nil)
}

// sealConfig judges a change to kept config root r (under seal.mu): the
// settings the command added or changed stay where they are inert; one
// that is not is taken out, and then what it removed is put back. done is false where the file is not one to judge by its settings
// (gone, a link, too big, unreadable to git): it then goes back whole.
func (s *Sandbox) sealConfig(r sealRoot, changed []string) (note string, done bool) {
	f := s.seal.saved[r.path]
	fi, err := os.Lstat(r.path)
	if f == nil || f.big || err != nil || !fi.Mode().IsRegular() || fi.Size() > sealMaxFile || (!f.absent && !f.mode.IsRegular()) {
		return "", false
	}
	var before []gitconf.Entry
	if !f.absent {
		if before, err = parseConfig(f.data); err != nil {
			return "", false
		}
	}
	data, err := os.ReadFile(r.path)
	if err != nil {
		return "", false
	}
	now, err := parseConfig(data)
	if err != nil {
		return "", false
	}
	at := s.gitPlace(r.path)
	added, removed := gitconf.Diff(before, now)
	goodAdded, badAdded := gitconf.Judge(added, at)
	_, badRemoved := gitconf.Judge(removed, at)
	if len(badAdded)+len(badRemoved) == 0 {
		s.sealSave(r) // inert changes only: kept, and the saved copy from now on
		return "", true
	}
	what := s.takenList(r.path, badAdded, badRemoved)
	if len(goodAdded) == 0 {
		if s.sealRestore(r, changed) {
			return s.relName(r.path) + " (put back as it was before the command changed it; " + what + "): " + r.why, true
		}
		return s.relName(r.path) + " (changed by the command, and could not be put back; " + what + "): " + r.why, true
	}
	// Some of what it added is inert: that stays, with all the command
	// removed (a change that brought a setting off the list undoes all
	// but its inert additions), the file written anew.
	kept := without(now, badAdded)
	_, stillHere := gitconf.Diff(kept, before)
	kept = append(kept, stillHere...)
	if !writeAtomic(r.path, gitconf.Render(kept), fi.Mode().Perm()) {
		if s.sealRestore(r, changed) {
			return s.relName(r.path) + " (put back as it was before the command changed it; " + what + "): " + r.why, true
		}
		return s.relName(r.path) + " (changed by the command, and could not be put back; " + what + "): " + r.why, true
	}
	s.sealSave(r)
	return s.relName(r.path) + " (the command's inert settings kept; " + what + "): " + r.why, true
}

// without is entries less one of each taken (a multiset difference).
func without(entries []gitconf.Entry, taken []gitconf.Taken) []gitconf.Entry {
	drop := map[gitconf.Entry]int{}
	for _, t := range taken {
		drop[t.Entry]++
	}
	var out []gitconf.Entry
	for _, e := range entries {
		if drop[e] > 0 {
			drop[e]--
			continue
		}
		out = append(out, e)
	}
	return out
}

// sealNewInner cleans the git folders a command made inside a kept one
// (a submodule's under modules/, a linked worktree's under worktrees/),
// which no .git entry of the workspace may point to, and starts keeping
// them; it says what it took out.
func (s *Sandbox) sealNewInner() []string {
	s.seal.mu.Lock()
	var fresh []string
	for p, r := range s.seal.roots {
		if r.why != whyGitConfig || filepath.Base(p) != "config" {
			continue
		}
		for _, sub := range []string{"modules", "worktrees"} {
			for _, in := range innerGitDirs(filepath.Join(filepath.Dir(p), sub), 3) {
				if _, ok := s.seal.roots[filepath.Join(in, "config")]; !ok {
					fresh = appendUnique(fresh, in)
				}
			}
		}
	}
	s.seal.mu.Unlock()
	var notes []string
	for _, g := range fresh {
		if taken := s.cleanGitDir(g); len(taken) > 0 {
			notes = append(notes, s.relName(g)+" (a git folder the command made; "+strings.Join(taken, "; ")+"): "+whyGitConfig)
		}
	}
	if len(fresh) > 0 {
		s.sealBeginRoots(s.sealRoots(nil), false, time.Now())
	}
	return notes
}
