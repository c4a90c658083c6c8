package session

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/windows"
)

// initMode marks the turn of the person's own /init (the built-in: a file
// cannot take its name), and returns what unmarks it.
func (s *Session) initMode(p Prompt) (restore func()) {
	if p.Command != "init" || s.opt.child {
		return func() {}
	}
	s.mu.Lock()
	s.initTurn = true
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.initTurn = false
		s.mu.Unlock()
	}
}

// initAllows reports whether req is the one change /init is for: writing
// the workspace's AGENTS.md (a plain file or none yet) during the person's
// /init. AGENTS.md is asked for because it instructs every later turn;
// the person asked for exactly that, so pipe mode does not deny it. Any
// other file, a symlink, or plan mode still takes the usual way.
func (s *Session) initAllows(req windows.ApprovalRequest) bool {
	s.mu.Lock()
	on := s.initTurn
	s.mu.Unlock()
	path, ok := strings.CutPrefix(req.Subject, "write ")
	if !on || req.Kind != "file" || !ok || s.mode.Get() == windows.ModePlan {
		return false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.workdir, path)
	}
	path = filepath.Clean(path)
	if path != filepath.Join(s.workdir, "AGENTS.md") && path != filepath.Join(sandbox.WorkspaceRoot(s.workdir), "AGENTS.md") {
		return false
	}
	fi, err := os.Lstat(path)
	return os.IsNotExist(err) || err == nil && fi.Mode().IsRegular()
}
