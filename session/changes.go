package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/aci-dev/aci/windows"
)

// The session's changes (docs/protocol.md §9): every file it changed, by file
// windows and by commands, against its state before the session's first
// turn that changed it, read from the session's undo journal.

// ChangedFile is one file the session changed, as /diff, the page and GET
// /api/sessions/{id}/diff show it. Path is relative to the workspace when
// it is inside it. Diff has secrets removed; Before and After are the
// file's own bytes, for the person's own diff tool only.
type ChangedFile struct {
	Path   string `json:"path"`
	Status string `json:"status"` // added, modified, deleted
	Diff   string `json:"diff"`
	Abs    string `json:"-"`
	Before []byte `json:"-"`
	After  []byte `json:"-"`
}

// changeJournal is a journal that lists the session's changes and puts
// one file back (windows.UndoJournal).
type changeJournal interface {
	Changes() []windows.SessionChange
	RevertFile(path string) (windows.UndoResult, error)
}

// ErrNoJournal is asking for the changes of a session that keeps no record
// of them (a transcript not loaded in this process).
var ErrNoJournal = errors.New("this session keeps no record of file changes")

// ChangesNote says what the list cannot hold: commands' changes are read
// from git snapshots, so outside a git work tree only file windows' are.
func (s *Session) ChangesNote() string {
	if !inGitTree(s.workdir) {
		return "commands' changes are tracked in a git work tree only: this list holds the file windows' changes"
	}
	return ""
}

// Changes lists every file the session changed that is not as it was
// before, in the order the session first changed them.
func (s *Session) Changes() ([]ChangedFile, error) {
	j, ok := s.opt.Journal.(changeJournal)
	if !ok {
		return nil, ErrNoJournal
	}
	redact := s.f.cfg.Agent.Redact
	var out []ChangedFile
	for _, c := range j.Changes() {
		rel := s.relPath(c.Path)
		out = append(out, ChangedFile{Path: rel, Status: c.Status, Diff: redact(c.Diff(rel)), Abs: c.Path, Before: c.Before, After: c.After})
	}
	return out, nil
}

// RevertFile puts one file (relative to the workspace, or absolute) back
// as it was before the session changed it; a file changed since by
// someone else is left alone and Refused. It refuses while a turn runs.
func (s *Session) RevertFile(path string) (windows.UndoResult, error) {
	j, ok := s.opt.Journal.(changeJournal)
	if !ok {
		return windows.UndoResult{}, ErrNoJournal
	}
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return windows.UndoResult{}, ErrClosed
	case s.running:
		s.mu.Unlock()
		return windows.UndoResult{}, ErrBusy
	}
	s.running = true // held as a turn holds it: no turn writes while the file moves
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}()
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.workdir, path)
	}
	return j.RevertFile(path)
}

// relPath is p relative to the workspace when inside it, else p.
func (s *Session) relPath(p string) string {
	if rel, err := filepath.Rel(s.workdir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return rel
	}
	return p
}

// inGitTree says whether dir is inside a git work tree (a .git here or in
// a folder above), where commands' changes are snapshotted.
func inGitTree(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return false
		}
		dir = up
	}
}
