package ui

import "strings"

// AskTrust asks, before the session starts, whether the project's hooks
// and MCP servers (lines: what would run) may run in this folder.
func (r *REPL) AskTrust(lines []string) bool {
	o := r.out
	o.println(o.yellow.Sprint("This folder's project settings would run code on your machine:"))
	for _, l := range lines {
		o.println("  " + sanitize(l))
	}
	line, err := r.in.ask("  " + o.bold.Sprint("trust this folder?") + " (y/n, Enter) › ")
	r.in.setPrompt(r.modePrompt(""))
	yes := err == nil && strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
	if yes {
		o.note("trusted: asked again if what would run changes")
	} else {
		o.note("not trusted: the project's hooks and MCP servers are not run this session")
	}
	return yes
}
