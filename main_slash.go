package main

import (
	"fmt"

	"github.com/aci-dev/aci/commands"
	"github.com/aci-dev/aci/ui"
)

// pipeSlashError is what is wrong with a -p question that names a slash
// command aci cannot run there, "" if nothing: as in the REPL, an unknown
// /NAME is refused, not sent to the model (docs/protocol.md §1). A line such
// as "/etc/hosts is wrong" names no command and is a question.
func pipeSlashError(workdir, question string) string {
	name, _, ok := commands.Split(question)
	if !ok {
		return ""
	}
	if _, ok := commands.Load(workdir, commands.UserDir()).Lookup(name); ok {
		return ""
	}
	if ui.IsREPLCommand(name) {
		return fmt.Sprintf("/%s is a command of the REPL (aci with no -p); aci -p runs /init, /review, and the command and skill files", name)
	}
	return fmt.Sprintf("unknown command /%s: aci -p runs /init, /review, and the command and skill files (.aci/commands, .claude/commands, skills)", name)
}
