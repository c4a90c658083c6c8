package session

import (
	"github.com/aci-dev/aci/tools/lsp"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/windows"
)

// diagnostics gives the session's file windows language servers (none
// start until a file of their language is shown; ACI_LSP=off: none at
// all), and the person a line after each edit that leaves errors. The
// session stops the servers when it closes.
func (s *Session) diagnostics(env *windows.Env) {
	if lsp.Off() {
		return
	}
	servers, problems := settings.LoadLSP()
	for _, p := range problems {
		s.say(p)
	}
	s.lsp = lsp.Shared(lsp.Options{Workdir: s.workdir, Servers: servers})
	env.Diagnostics = s.lsp
	env.DiagnosticsNote = func(line string) {
		s.publish(Notice{Kind: "diagnostics", Text: s.f.cfg.Agent.Redact(line)})
	}
}
