//go:build linux

package sandbox

import (
	"sync"
	"time"
)

// A session's life: counted holds by the commands running in it, retiring
// it when it went away, and the process's list of them for Cleanup.

// dropSession forgets sess, which went away; the next command starts
// another.
func (s *Sandbox) dropSession(sess *session) {
	s.sessMu.Lock()
	if s.sess == sess {
		s.sess = nil
	}
	s.sessMu.Unlock()
	sess.retire()
}

// hold counts a command started in the session; false when the session
// is closed already.
func (sess *session) hold() bool {
	sess.refMu.Lock()
	defer sess.refMu.Unlock()
	if sess.closed {
		return false
	}
	sess.running++
	return true
}

// letGo is hold's end: a retired session closes with its last command.
func (sess *session) letGo() {
	sess.refMu.Lock()
	sess.running--
	last := sess.retired && sess.running == 0
	sess.refMu.Unlock()
	if last {
		sess.close()
	}
}

// retire takes the session out of use: it closes now if no command runs
// in it, else when the last one ends.
func (sess *session) retire() {
	sess.refMu.Lock()
	sess.retired = true
	idle := sess.running == 0
	sess.refMu.Unlock()
	if idle {
		sess.close()
	}
}

// closeSession ends the session's sandbox, if any, with the commands
// still in it (Close).
func (s *Sandbox) closeSession() {
	s.sessMu.Lock()
	sess := s.sess
	s.sess = nil
	s.sessStarts = maxSessionStarts
	s.sessMu.Unlock()
	if sess != nil {
		sess.close()
	}
}

func (sess *session) close() {
	sess.refMu.Lock()
	sess.closed = true
	sess.refMu.Unlock()
	sess.ctl.Close()
	// Nothing in it needs a graceful end (its commands end with it, and
	// an idle helper holds nothing): killed at once, so that no exit of
	// aci waits on a slow or stuck sandbox.
	sess.cmd.Process.Kill()
	select {
	case <-sess.done:
	case <-time.After(200 * time.Millisecond):
	}
}

var sessions struct {
	sync.Mutex
	list []*session
}

func registerSession(sess *session) {
	sessions.Lock()
	sessions.list = append(sessions.list, sess)
	sessions.Unlock()
}

// closeSessions ends every session's sandbox (Cleanup).
func closeSessions() {
	sessions.Lock()
	list := sessions.list
	sessions.list = nil
	sessions.Unlock()
	for _, sess := range list {
		sess.close()
	}
}
