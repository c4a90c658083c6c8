package serve

import (
	"errors"
	"net/http"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

type modeRequest struct {
	Mode string `json:"mode"`
}

// decodeMode reads {"mode": "plan"}.
func decodeMode(body []byte) (windows.PermMode, error) {
	var req modeRequest
	if err := decodeStrict(body, &req); err != nil {
		return "", err
	}
	return windows.ParseMode(req.Mode)
}

// clientModes are the modes a client may switch a session to, as the page
// offers them: yes only where the server itself was started with it.
func (s *Server) clientModes() []string {
	var out []string
	for _, m := range windows.Modes {
		if m != windows.ModeYes || s.cfg.Mode == windows.ModeYes {
			out = append(out, string(m))
		}
	}
	return out
}

// setMode is POST /api/sessions/{id}/mode: switches the session's
// permission mode. yes only where the server itself was started with it:
// a client cannot turn the questions off.
func (s *Server) setMode(w http.ResponseWriter, r *http.Request) {
	m, ss, ok := sessionBody(s, w, r, maxSmallBody, decodeMode)
	if !ok {
		return
	}
	if m == windows.ModeYes && s.cfg.Mode != windows.ModeYes {
		s.fail(w, http.StatusForbidden, "mode yes is only for a server started with --yes (or --permission-mode yes)")
		return
	}
	ss.SetMode(m)
	s.writeJSON(w, http.StatusOK, map[string]string{"mode": string(ss.Mode())})
}

// acceptPlan is POST /api/sessions/{id}/plan/accept: the last turn's plan
// is accepted, the session switches to default mode and a turn carries
// the plan out.
func (s *Server) acceptPlan(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	if ss.Attached() {
		s.fail(w, http.StatusConflict, "this session runs in a terminal: accept the plan there")
		return
	}
	q, err := ss.AcceptPlan()
	if errors.Is(err, session.ErrNoPlan) {
		s.fail(w, http.StatusConflict, "%v", err)
		return
	}
	turn, err := ss.Start(q)
	switch {
	case errors.Is(err, session.ErrBusy):
		s.fail(w, http.StatusConflict, "a turn is running: wait for its end")
	case err != nil:
		s.fail(w, http.StatusInternalServerError, "start the turn: %v", err)
	default:
		s.writeJSON(w, http.StatusAccepted, map[string]any{"turn": turn, "mode": string(ss.Mode())})
	}
}
