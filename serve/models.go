package serve

import (
	"context"
	"net/http"
	"time"

	"github.com/aci-dev/aci/agent"
)

// modelListTimeout bounds asking the model server for its models, as the
// REPL's /model does.
const modelListTimeout = 10 * time.Second

// models answers GET /api/models: what a new session may name (the model
// server's GET /v1/models, as /model lists it) and the configured model.
// A model server that lists none is no failure of this request: the list
// is empty and "error" says why (a session may still name any model).
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	cc := s.cfg.Factory.Config().Client
	ctx, cancel := context.WithTimeout(r.Context(), modelListTimeout)
	defer cancel()
	list, err := agent.ListModels(ctx, cc.BaseURL, cc.APIKey)
	if err != nil {
		s.writeJSON(w, http.StatusOK, map[string]any{"default": cc.Model, "models": []string{},
			"error": oneLine("the model server does not list its models: " + err.Error())})
		return
	}
	names := make([]string, 0, len(list))
	for _, m := range list {
		names = append(names, m.ID)
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"default": cc.Model, "models": names})
}
