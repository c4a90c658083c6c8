package windows

import (
	"fmt"
	"strings"

	"github.com/aci-dev/aci/protocol"
)

// A read-only turn (/review) changes nothing: the manager refuses every
// action that could change a file, whatever the person's approvals say.
// This is narrower than a permission mode: file windows only view, bash
// runs only the reading commands readOnlyCommand knows, MCP tools do not
// run (their effects are unknown); the web and the launcher work.

// SetReadOnly makes the manager refuse changes, reason saying why (the
// model reads it); "" lifts it.
func (m *Manager) SetReadOnly(reason string) {
	m.mu.Lock()
	m.readOnly = reason
	m.mu.Unlock()
}

// refuseInReadOnly is the denial of an action that could change files
// while a read-only turn runs, or nil.
func (m *Manager) refuseInReadOnly(w Window, action string, args Args) *Result {
	m.mu.Lock()
	reason := m.readOnly
	m.mu.Unlock()
	if reason == "" {
		return nil
	}
	var why string
	switch w.App() {
	case "launcher", "web_fetch", "skill", "image", "agent": // an agent opened now is read-only too (agent.go)
		return nil
	case "file":
		if action == "view" || action == "close" {
			return nil
		}
		why = "files are not changed"
	case "bash":
		if action != "run" && action != "start" {
			return nil
		}
		why = readOnlyCommand(args.String("command"))
		if why == "" {
			return nil
		}
	case "mcp":
		if action == "read" || action == "close" {
			return nil
		}
		why = "an MCP tool may change things"
	default:
		if action == "close" {
			return nil
		}
		why = "only reading actions run"
	}
	return &Result{Status: protocol.StatusDenied, Text: fmt.Sprintf("refused: %s; in this turn %s", strings.TrimSuffix(reason, "."), why)}
}
