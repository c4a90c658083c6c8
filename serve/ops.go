package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

// opError is an operation's failure with its status.
type opError struct {
	code int
	err  error
}

func (e *opError) Error() string { return e.err.Error() }

// runOp is the route of one operation: the body decoded, the session
// found, do run on them; its value is the answer, its error the failure
// (an *opError with its status, else 400 but for what every operation
// shares: opFailed).
func runOp[T any](s *Server, w http.ResponseWriter, r *http.Request, decode func([]byte) (T, error), do func(*session.Session, T) (any, error)) {
	req, ss, ok := sessionBody(s, w, r, maxSmallBody, decode)
	if !ok {
		return
	}
	out, err := do(ss, req)
	var oe *opError
	switch {
	case err == nil:
		s.writeJSON(w, http.StatusOK, out)
	case s.opFailed(w, ss, err):
	case errors.As(err, &oe):
		s.fail(w, oe.code, "%v", oe.err)
	default:
		s.fail(w, http.StatusBadRequest, "%v", err)
	}
}

// compact is POST /api/sessions/{id}/compact: the conversation becomes a
// summary now, as the REPL's /compact does. It answers when done; POST
// .../cancel ends it.
func (s *Server) compact(w http.ResponseWriter, r *http.Request) {
	runOp(s, w, r, decodeOptional[compactRequest], func(ss *session.Session, req compactRequest) (any, error) {
		c, err := ss.Compact(r.Context(), req.Focus)
		switch {
		case err == nil:
			return c, nil
		case errors.Is(err, session.ErrNothingToCompact):
			return nil, &opError{http.StatusConflict, err}
		case errors.Is(err, context.Canceled):
			return nil, &opError{http.StatusConflict, errors.New("the compaction was cancelled")}
		case errors.Is(err, session.ErrBusy), errors.Is(err, session.ErrClosed):
			return nil, err
		}
		return nil, &opError{http.StatusBadGateway, fmt.Errorf("compact: %w", err)}
	})
}

// setModel is POST /api/sessions/{id}/model: the session's next requests
// go to another model (a provider's as NAME/MODEL; GET /api/models lists
// them), as the REPL's /model NAME does.
func (s *Server) setModel(w http.ResponseWriter, r *http.Request) {
	runOp(s, w, r, decodeObject[modelRequest], func(ss *session.Session, req modelRequest) (any, error) {
		if err := ss.SetModel(r.Context(), req.Model); err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
		return map[string]string{"model": ss.Model()}, nil
	})
}

// setEffort is POST /api/sessions/{id}/effort: the reasoning effort of
// the session's next requests, as the REPL's /effort LEVEL sets it.
func (s *Server) setEffort(w http.ResponseWriter, r *http.Request) {
	runOp(s, w, r, decodeObject[effortRequest], func(ss *session.Session, req effortRequest) (any, error) {
		e, err := ss.Effort(req.Effort)
		if err != nil {
			return nil, fmt.Errorf("effort: %w", err)
		}
		return e, nil
	})
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
