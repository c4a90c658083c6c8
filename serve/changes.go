package serve

import (
	"errors"
	"net/http"

	"github.com/aci-dev/aci/session"
)

// diffAnswer is GET /api/sessions/{id}/diff's body.
type diffAnswer struct {
	Files []session.ChangedFile `json:"files"`
	Note  string                `json:"note,omitempty"` // what the list cannot hold
}

// diff lists every file the session changed, against the state before its
// first turn (docs/protocol.md §9). The record of changes lives in the process
// that ran the turns: a session this server has not loaded answers an
// empty list and says why, without loading it.
func (s *Server) diff(w http.ResponseWriter, r *http.Request) {
	_, ss, ok := s.viewed(w, r)
	if !ok {
		return
	}
	ans := diffAnswer{Files: []session.ChangedFile{}}
	if ss == nil {
		ans.Note = "this session is not loaded in this server: its file changes are recorded by the process that ran its turns"
		s.writeJSON(w, http.StatusOK, ans)
		return
	}
	files, err := ss.Changes()
	switch {
	case errors.Is(err, session.ErrNoJournal):
		ans.Note = err.Error()
	case err != nil:
		s.fail(w, http.StatusInternalServerError, "%v", err)
		return
	default:
		if files != nil {
			ans.Files = files
		}
		ans.Note = ss.ChangesNote()
	}
	s.writeJSON(w, http.StatusOK, ans)
}

// export is the session's readable transcript, built from its event log
// (loaded here or not), secrets removed.
func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "md"
	}
	ctype, known := session.ExportFormats[format]
	if !known {
		s.fail(w, http.StatusBadRequest, "unknown export format %q: md or html", format)
		return
	}
	id := r.PathValue("id")
	if err := s.find(id); err != nil {
		s.notFound(w, err)
		return
	}
	dir, err := s.sessionsDir()
	if err != nil {
		s.fail(w, http.StatusInternalServerError, "%v", err)
		return
	}
	st, err := session.FindSession(dir, s.cfg.Workdir, id)
	if err != nil {
		s.notFound(w, err)
		return
	}
	doc, err := session.Export(st, format, s.cfg.Redact)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, "%v", err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-store")
	// The document is data: a browser opening it runs nothing of it.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(doc)
}
