package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aci-dev/aci/transcript"
)

// Looking a session up reads as little of the store as it can: an exact
// id is one file's first line, a prefix the file names and the first
// lines of those that match. Only the session found is replayed.

// LatestSession finds the most recent transcript of workdir in dir that
// holds a conversation, and replays it. It returns an error when there is
// none.
func LatestSession(dir, workdir string) (Session, error) {
	names, err := transcript.Files(dir)
	if err != nil {
		return Session{}, err
	}
	var best Session
	for _, name := range names {
		path := filepath.Join(dir, name)
		if wd, err := transcript.Workdir(path); err != nil || wd != workdir {
			continue
		}
		s, _, err := replay(path)
		if err != nil || s.empty() {
			continue
		}
		// Names sort by the second a session started; within one second
		// its meta record's time decides.
		if best.Path == "" {
			best = s
			continue
		}
		if !sameSecond(best.ID, s.ID) {
			break
		}
		if s.Started.After(best.Started) {
			best = s
		}
	}
	if best.Path == "" {
		return Session{}, fmt.Errorf("no earlier session for %s", workdir)
	}
	return best, nil
}

// sameSecond says whether two session ids were made in the same second
// (their names start with it: 20060102-150405-).
func sameSecond(a, b string) bool {
	const n = len("20060102-150405")
	return len(a) >= n && len(b) >= n && a[:n] == b[:n]
}

// FindSession replays the session with this id (a file name, with or
// without .jsonl, or a unique prefix of one) of workdir.
func FindSession(dir, workdir, id string) (Session, error) {
	path, err := SessionPath(dir, workdir, id, true)
	if err != nil {
		return Session{}, err
	}
	s, _, err := replay(path)
	if err != nil {
		return Session{}, fmt.Errorf("read session %s: %w", id, err)
	}
	return s, nil
}

// ErrNoSession is an id that names no transcript of the workspace.
var ErrNoSession = errors.New("no session")

// SessionPath is the transcript of workdir in dir named id (with or
// without .jsonl), or, when prefix is true and no name is exactly id, the
// one whose name starts with it. An unknown id costs one stat.
func SessionPath(dir, workdir, id string, prefix bool) (string, error) {
	id = strings.TrimSuffix(strings.TrimSpace(id), ".jsonl")
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return "", fmt.Errorf("%w: bad session id %q (aci --sessions lists them)", ErrNoSession, id)
	}
	path := filepath.Join(dir, id+".jsonl")
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		if wd, err := transcript.Workdir(path); err == nil && wd == workdir {
			return path, nil
		}
	}
	notFound := fmt.Errorf("%w %q for %s (aci --sessions lists them)", ErrNoSession, id, workdir)
	if !prefix {
		return "", notFound
	}
	names, err := transcript.Files(dir)
	if err != nil {
		return "", err
	}
	var found []string
	for _, name := range names {
		if !strings.HasPrefix(name, id) {
			continue
		}
		p := filepath.Join(dir, name)
		if wd, err := transcript.Workdir(p); err == nil && wd == workdir {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", notFound
	}
	return "", fmt.Errorf("session id %q is ambiguous: %d sessions start with it", id, len(found))
}

// ResumeSession opens the session id of workdir (the latest one with a
// conversation when id is "") to append to it, as its one writer, and
// replays it. The transcript is claimed before it is read, so what is
// replayed is all there is: another process writing it gives a
// *LockedError, and nothing is read or changed.
func ResumeSession(dir, workdir, id, secret string) (*transcript.File, Session, error) {
	var path string
	if id != "" {
		p, err := SessionPath(dir, workdir, id, true)
		if err != nil {
			return nil, Session{}, err
		}
		path = p
	} else {
		latest, err := LatestSession(dir, workdir)
		if err != nil {
			return nil, Session{}, err
		}
		path = latest.Path
	}
	t, err := transcript.Open(path, secret)
	if err != nil {
		return nil, Session{}, err
	}
	s, _, err := replay(path)
	if err != nil {
		t.Close()
		return nil, Session{}, fmt.Errorf("read session %s: %w", filepath.Base(path), err)
	}
	s.Damaged += t.Dropped
	return t, s, nil
}
