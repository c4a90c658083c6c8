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
// server's GET /v1/models, as /model lists it, then each provider's models
// as NAME/MODEL) and the configured model. A model server that lists none
// is no failure of this request: its part of the list is empty and
// "error" says why (a session may still name any model); "providers" says
// the same of each provider.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	cc := s.cfg.Factory.Config().Client
	ctx, cancel := context.WithTimeout(r.Context(), modelListTimeout)
	defer cancel()
	out := map[string]any{"default": cc.Model}
	names := []string{}
	if list, err := agent.ListModels(ctx, cc.BaseURL, cc.APIKey); err != nil {
		out["error"] = oneLine("the model server does not list its models: " + err.Error())
	} else {
		for _, m := range list {
			names = append(names, m.ID)
		}
	}
	if len(cc.Providers) > 0 {
		client := agent.NewOpenAIClient(cc)
		var provs []map[string]any
		for _, p := range client.Providers() {
			entry := map[string]any{"name": p.Name, "models": []string{}}
			if err := client.CheckModel(p.Name + "/x"); err != nil {
				entry["error"] = oneLine(err.Error())
			} else if list, err := client.ProviderModels(ctx, p.Name); err != nil {
				entry["error"] = oneLine("the provider does not list its models: " + err.Error())
			} else {
				entry["models"] = list
				names = append(names, list...)
			}
			provs = append(provs, entry)
		}
		out["providers"] = provs
	}
	out["models"] = names
	s.writeJSON(w, http.StatusOK, out)
}
