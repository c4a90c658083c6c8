package acp

import (
	"encoding/json"
	"reflect"

	"github.com/aci-dev/aci/commands"
)

// The session's operations with an editor form (ops.go) and the
// workspace's slash commands reach the editor as an
// available_commands_update (ACP's slash commands): /compact, /model,
// /effort, /rewind, then /init, /review, the command files and the skills. The editor sends "/name args" as prompt
// text; the session expands it as it does for every front end.

type availableCommand struct {
	Name        string                 `json:"name"`
	Description string                 `json:"description"`
	Input       *availableCommandInput `json:"input,omitempty"`
}

type availableCommandInput struct {
	Hint string `json:"hint"`
}

type availableCommandsUpdate struct {
	SessionUpdate     string             `json:"sessionUpdate"`
	AvailableCommands []availableCommand `json:"availableCommands"`
}

// availableCommands lists set for the editor; a file that cannot run is
// listed with what is wrong, as /help lists it.
func availableCommands(set *commands.Set) []availableCommand {
	out := make([]availableCommand, 0, len(set.Commands))
	for _, c := range set.Commands {
		ac := availableCommand{Name: c.Name, Description: c.Description}
		if c.Problem != "" {
			ac.Description = "cannot run: " + c.Problem
		}
		if c.ArgumentHint != "" {
			ac.Input = &availableCommandInput{Hint: c.ArgumentHint}
		}
		out = append(out, ac)
	}
	return out
}

// sendCommands tells the editor the session's commands when they are not
// what it was told last (the files may change between prompts).
func (a *acpSession) sendCommands() {
	list := append(opCommands(), availableCommands(a.sess().Commands())...)
	a.mu.Lock()
	same := a.commandsSent != nil && reflect.DeepEqual(list, a.commandsSent)
	a.commandsSent = list
	a.mu.Unlock()
	if !same {
		a.up.send(availableCommandsUpdate{SessionUpdate: "available_commands_update", AvailableCommands: list})
	}
}

// followed is a request's result with something to do once the answer is
// on its way: a session's commands go out after session/new has told the
// editor the session's id.
type followed struct {
	result any
	then   func()
}

func (f followed) MarshalJSON() ([]byte, error) { return json.Marshal(f.result) }
