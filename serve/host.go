package serve

import (
	"errors"
	"net"
	"strings"
	"time"

	"github.com/aci-dev/aci/session"
)

// Host serves a session this process runs in a terminal (the REPL's
// /serve and --serve): clients watch its turns live, answer its questions
// (the terminal is asked too; the first answer wins) and add to its
// running turn; its turns start in the terminal. The server does not end
// it: the terminal does.
func (s *Server) Host(ss *session.Session) error {
	id := ss.ID()
	if id == "" {
		return errors.New("the session has no transcript (see the notes above): it cannot be served")
	}
	ss.Attach()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the server is shutting down")
	}
	s.live[id] = &liveSession{s: ss, born: time.Now().UTC(), hosted: true}
	return nil
}

// SessionURL is the page's address opened on session id.
func (s *Server) SessionURL(addr net.Addr, id string) string {
	u := s.URL(addr)
	if strings.Contains(u, "#") {
		return u + "&session=" + id
	}
	return u + "#" + id
}
