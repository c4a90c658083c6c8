package serve

import (
	"net/http"
)

// models answers GET /api/models: what a new session may name (the model
// server's GET /v1/models, as /model lists it, then each provider's models
// as NAME/MODEL) and the configured model. A model server that lists none
// is no failure of this request: its part of the list is empty and
// "error" says why (a session may still name any model); "providers" says
// the same of each provider.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	list := s.cfg.Factory.Models(r.Context())
	out := map[string]any{"default": list.Current}
	names := list.Models
	if list.Err != nil {
		out["error"] = oneLine("the model server does not list its models: " + list.Err.Error())
	}
	if len(list.Providers) > 0 {
		var provs []map[string]any
		for _, p := range list.Providers {
			entry := map[string]any{"name": p.Name, "models": p.Models}
			if p.Err != nil {
				entry["error"] = oneLine(p.Err.Error())
			}
			names = append(names, p.Models...)
			provs = append(provs, entry)
		}
		out["providers"] = provs
	}
	out["models"] = names
	s.writeJSON(w, http.StatusOK, out)
}
