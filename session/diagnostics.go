package session

import (
	"github.com/aci-dev/aci/tools/lsp"
	"github.com/aci-dev/aci/windows"
)

// diagnostics gives the session's file windows language servers (none
// start until a file of their language is shown; ACI_LSP=off: none at
// all), and the person a line after each edit that leaves errors, and one
// when a server does not start or stops. The servers take nothing from
// the workspace unless the person trusts the folder, and see it
// read-only while the session is in plan mode (restarted when the mode
// changes). The session stops the servers when it closes.
func (s *Session) diagnostics(env *windows.Env) {
	if lsp.Off() {
		return
	}
	servers := s.f.cfg.Person.LSP // problems are said with the policy's (rules.go)
	tell := func(line string) {
		n := Notice{Kind: "diagnostics", Text: s.f.cfg.Agent.Redact(line)}
		s.mu.Lock()
		if s.call != nil {
			// An edit's line follows the edit's result (heldNotices).
			s.held = append(s.held, n)
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		s.publish(n)
	}
	s.lsp = lsp.Shared(lsp.Options{Workdir: s.workdir, Servers: servers, Trusted: s.folderTrusted, Notice: tell, Wait: s.f.cfg.DiagnosticsWait})
	env.Diagnostics = s.lsp
	env.DiagnosticsNote = tell
	s.planDiagnostics()
	s.mode.OnChange(func(windows.PermMode) { s.planDiagnostics() })
}

// planDiagnostics tells the servers whether this session is in plan mode
// now (the mode as limited for a child).
func (s *Session) planDiagnostics() {
	if s.lsp == nil {
		return
	}
	plan := s.mode.Get() == windows.ModePlan
	s.mu.Lock()
	changed := plan != s.lspPlan && !s.closed
	if changed {
		s.lspPlan = plan
	}
	s.mu.Unlock()
	if changed {
		s.lsp.Plan(plan)
	}
}

// closeDiagnostics lets go of the servers.
func (s *Session) closeDiagnostics() {
	if s.lsp == nil {
		return
	}
	s.mu.Lock()
	plan := s.lspPlan
	s.lspPlan = false
	s.mu.Unlock()
	// Closed first: the last user's leaving stops the servers rather
	// than restarting them writable.
	s.lsp.Close()
	if plan {
		s.lsp.Plan(false)
	}
}

// heldNotices publishes the diagnostics said while a call ran, once its
// result is out: a person reads the edit, then what it left in the file.
func (s *Session) heldNotices() { s.publishKept(&s.held) }
