//go:build !linux

package sandbox

import (
	"os"
	"syscall"
)

// This system has no session sandbox: every command takes the one-shot
// path.

type session struct{}

// SpawnRequest is one command to start in the session.
type SpawnRequest struct {
	Argv     []string
	Dir      string
	Env      []string
	Output   *os.File
	Link     *Link
	Writable []string
	Setup    func(pid int) error
}

// Spawned is a command started in the session.
type Spawned struct{ Pid int }

// Wait waits for the command to end.
func (p *Spawned) Wait() (syscall.WaitStatus, error) { return 0, nil }

// Warm does nothing here.
func (s *Sandbox) Warm() {}

// Spawn always sends the command the one-shot way here.
func (s *Sandbox) Spawn(SpawnRequest) (*Spawned, func() []string, bool, error) {
	return nil, nil, false, nil
}

// SessionUp is always false here.
func (s *Sandbox) SessionUp() bool { return false }

// TakesInSession is always false here.
func (s *Sandbox) TakesInSession([]string) bool { return false }

// closeSession does nothing here: there is no session's sandbox.
func (s *Sandbox) closeSession() {}

// NewRunDir makes a private folder for one command's own files.
func (s *Sandbox) NewRunDir() (string, error) { return os.MkdirTemp("", "aci-run-") }

func closeSessions() {}
