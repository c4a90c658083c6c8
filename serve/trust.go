package serve

import (
	"net/http"

	"github.com/aci-dev/aci/session"
)

type trustRequest struct {
	Trust *bool `json:"trust"`
}

// trustInfo is GET /api/trust: what the workspace's project settings and
// .mcp.json would run, and whether the person trusts exactly that
// (docs/protocol.md section 10). The page asks once when they do not.
func (s *Server) trustInfo(w http.ResponseWriter, r *http.Request) {
	code := s.cfg.Factory.FolderCode(s.cfg.Workdir)
	lines := code.Lines
	if lines == nil {
		lines = []string{}
	}
	changes := code.Changes(s.cfg.Workdir)
	if changes == nil {
		changes = []string{}
	}
	// --trust covers hooks and servers, never the endpoint (docs/protocol.md §2).
	trusted := code.Trusted(s.cfg.Workdir) || (s.cfg.Trust && code.Endpoint == "")
	s.writeJSON(w, http.StatusOK, map[string]any{"lines": lines, "changes": changes, "trusted": trusted})
}

// trust is POST /api/trust {"trust": true}: the person trusts what the
// folder would run now; sessions made from then on run it (and ask again
// once it changes).
func (s *Server) trust(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody(s, w, r, maxSmallBody, decodeObject[trustRequest])
	if !ok {
		return
	}
	if req.Trust == nil || !*req.Trust {
		s.fail(w, http.StatusBadRequest, `send {"trust": true} to trust this folder; not trusting needs no request`)
		return
	}
	code := s.cfg.Factory.FolderCode(s.cfg.Workdir)
	if code.Hash != "" {
		if err := session.TrustFolder(s.cfg.Workdir, code); err != nil {
			s.fail(w, http.StatusInternalServerError, "%v", err)
			return
		}
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"trusted": true})
}
