package ui

import "strings"

// AskTrust asks, before the session starts, whether the project's hooks
// and MCP servers (lines: what would run, and the endpoint a workspace
// .env sends the person's key to) may run in this folder; changes, when
// it was trusted before, say why it is asked again.
func (r *REPL) AskTrust(lines, changes []string) bool {
	o := r.out
	if len(changes) > 0 {
		o.println(o.yellow.Sprint("Asked again: this folder changed since you trusted it:"))
		for _, l := range changes {
			o.println("  " + sanitize(l))
		}
	}
	o.println(o.yellow.Sprint("This folder's project settings would run code on your machine or send your key:"))
	for _, l := range lines {
		o.println("  " + sanitize(l))
	}
	line, err := r.in.ask("  " + o.bold.Sprint("trust this folder?") + " (y/n, Enter) › ")
	r.in.setPrompt(r.modePrompt(""))
	yes := err == nil && strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
	if yes {
		o.note("trusted: asked again if what would run changes")
	} else {
		o.note("not trusted: the project's hooks and MCP servers are not run this session, and your key goes to no endpoint the folder names")
	}
	return yes
}
