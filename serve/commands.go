package serve

import (
	"net/http"

	"github.com/aci-dev/aci/commands"
)

// commandInfo is one prompt command as GET /api/commands lists it.
type commandInfo struct {
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	Scope        string `json:"scope"`
	Path         string `json:"path,omitempty"`
	Problem      string `json:"problem,omitempty"`
}

// commands answers GET /api/commands: the workspace's prompt commands
// (/init, /review, command files, skills) as their files are now. A file
// that cannot run is listed with its problem.
func (s *Server) commands(w http.ResponseWriter, r *http.Request) {
	set := commands.Load(s.cfg.Workdir, commands.UserDir())
	list := make([]commandInfo, 0, len(set.Commands))
	for _, c := range set.Commands {
		list = append(list, commandInfo{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint,
			Scope: c.Scope, Path: c.Path, Problem: c.Problem})
	}
	notes := set.Notes
	if notes == nil {
		notes = []string{}
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"commands": list, "notes": notes})
}
