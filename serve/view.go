package serve

import (
	"bytes"
	"net/http"

	"github.com/aci-dev/aci/session"
)

// Looking takes no lock. A session this server runs is read live; any
// other (a transcript not loaded yet, or one a terminal is writing) is
// read from its transcript without loading it, so viewing never takes
// the transcript's lock: only sending to a session does (message, which
// loads it).

// view is session id as GET /api/sessions/{id} shows it, and the live
// session when this server runs it (nil otherwise).
func (s *Server) view(id string) (session.Info, *session.Session, error) {
	if ss := s.lookup(id); ss != nil {
		return ss.Info(), ss, nil
	}
	if err := s.find(id); err != nil {
		return session.Info{}, nil, err
	}
	dir, err := s.sessionsDir()
	if err != nil {
		return session.Info{}, nil, err
	}
	stored, err := session.FindSession(dir, s.cfg.Workdir, id)
	if err != nil {
		return session.Info{}, nil, err
	}
	return session.StoredInfo(stored, s.cfg.Workdir), nil, nil
}

// viewed is view for a request's session; it answers 404 (or 409, 500)
// itself when there is none.
func (s *Server) viewed(w http.ResponseWriter, r *http.Request) (session.Info, *session.Session, bool) {
	info, ss, err := s.view(r.PathValue("id"))
	if err != nil {
		s.notFound(w, err)
		return session.Info{}, nil, false
	}
	return info, ss, true
}

// replayStored writes the stored events of session id (not loaded here)
// with ids above after, as they were sent live, and returns the id a live
// stream of it goes on from: its last stored one, so the events it
// gives once loaded are all new to the client.
func (s *Server) replayStored(buf *bytes.Buffer, id string, after int64) int64 {
	dir, err := s.sessionsDir()
	if err != nil {
		return 0
	}
	stored, err := session.FindSession(dir, s.cfg.Workdir, id)
	if err != nil {
		return 0
	}
	for _, ev := range session.StoredEvents(stored) {
		if ev.ID > after {
			s.encodeEvent(buf, ev)
		}
	}
	return stored.LastEventID
}
