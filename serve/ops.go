package serve

import (
	"bytes"
	"context"
	"errors"
	"net/http"

	"github.com/aci-dev/aci/session"
)

// The session's operations that work on its loop and model, bound as
// routes (session/ops.go has the table): compact, model, effort.

type compactRequest struct {
	Focus string `json:"focus"` // what the summary should keep; "" none in particular
}

type modelRequest struct {
	Model string `json:"model"`
}

type effortRequest struct {
	Effort string `json:"effort"` // low, medium, high, or default
}

// decodeOptional reads a JSON object into a T, an empty body as T's zero.
func decodeOptional[T any](body []byte) (T, error) {
	var v T
	if len(bytes.TrimSpace(body)) == 0 {
		return v, nil
	}
	return v, decodeStrict(body, &v)
}

// decodeObject reads a JSON object into a T.
func decodeObject[T any](body []byte) (T, error) {
	var v T
	return v, decodeStrict(body, &v)
}

// compact is POST /api/sessions/{id}/compact: the conversation becomes a
// summary now, as the REPL's /compact does. It answers when done; POST
// .../cancel ends it.
func (s *Server) compact(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody(s, w, r, maxSmallBody, decodeOptional[compactRequest])
	if !ok {
		return
	}
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	c, err := ss.Compact(r.Context(), req.Focus)
	switch {
	case err == nil:
		s.writeJSON(w, http.StatusOK, c)
	case s.opFailed(w, ss, err):
	case errors.Is(err, session.ErrNothingToCompact):
		s.fail(w, http.StatusConflict, "%v", err)
	case errors.Is(err, context.Canceled):
		s.fail(w, http.StatusConflict, "the compaction was cancelled")
	default:
		s.fail(w, http.StatusBadGateway, "compact: %v", err)
	}
}

// setModel is POST /api/sessions/{id}/model: the session's next requests
// go to another model (a provider's as NAME/MODEL; GET /api/models lists
// them), as the REPL's /model NAME does.
func (s *Server) setModel(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody(s, w, r, maxSmallBody, decodeObject[modelRequest])
	if !ok {
		return
	}
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	if err := ss.SetModel(r.Context(), req.Model); err != nil {
		if !s.opFailed(w, ss, err) {
			s.fail(w, http.StatusBadRequest, "model: %v", err)
		}
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]string{"model": ss.Model()})
}

// setEffort is POST /api/sessions/{id}/effort: the reasoning effort of
// the session's next requests, as the REPL's /effort LEVEL sets it.
func (s *Server) setEffort(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody(s, w, r, maxSmallBody, decodeObject[effortRequest])
	if !ok {
		return
	}
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	e, err := ss.SetEffort(req.Effort)
	if err != nil {
		if !s.opFailed(w, ss, err) {
			s.fail(w, http.StatusBadRequest, "effort: %v", err)
		}
		return
	}
	s.writeJSON(w, http.StatusOK, e)
}

// opFailed answers the failures every operation shares, and says whether
// err was one of them.
func (s *Server) opFailed(w http.ResponseWriter, ss *session.Session, err error) bool {
	switch {
	case errors.Is(err, session.ErrBusy):
		s.fail(w, http.StatusConflict, "a turn is running: cancel it or wait for its end")
	case errors.Is(err, session.ErrClosed):
		s.fail(w, http.StatusNotFound, "the session was ended: load it again with GET /api/sessions/%s", ss.ID())
	case errors.Is(err, session.ErrNotOffered):
		s.fail(w, http.StatusNotImplemented, "%v", err)
	default:
		return false
	}
	return true
}
