package ui

import (
	"fmt"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
)

// agentStep shows an agent window's child's action live, indented under
// the parent's lines and named by the agent, as Claude Code shows a
// subagent's tool uses: its title as it begins, and a second line only
// when it did not end well (the whole list stays in /show AGENT).
func (r *renderer) agentStep(e session.AgentStep) {
	r.mu.Lock()
	defer r.mu.Unlock()
	head := "⎿ " + sanitize(e.Agent) + " · "
	var line string
	switch e.Status {
	case "running":
		line = r.dim.Sprint(head + firstLine(sanitize(e.Title), screenWidth()-8-len(e.Agent)))
	case protocol.StatusOK, protocol.StatusStarted:
		return
	default:
		line = r.dim.Sprint(head) + r.red.Sprint(sanitize(e.Status))
	}
	r.endReasoningLocked()
	r.eraseTailLocked()
	r.spin.stopLocked()
	r.flushProseLocked()
	r.endLineLocked()
	fmt.Fprintln(r.w, "  "+line)
	r.spin.startLocked(spinRunning)
}
