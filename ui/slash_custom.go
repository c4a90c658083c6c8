package ui

import (
	"fmt"
	"sort"

	promptcmd "github.com/aci-dev/aci/commands"
)

// The prompt commands (docs/protocol.md §9): /init, /review, the person's and
// the project's command files and the skills. The session expands them;
// the REPL lists them in /help, completes them, and runs one as a turn.

// runPromptCommand runs /name args as a turn when name is a prompt
// command; false when it is none.
func (r *REPL) runPromptCommand(name, arg string) bool {
	if _, ok := r.sess.Commands().Lookup(name); !ok {
		return false
	}
	line := "/" + name
	if arg != "" {
		line += " " + arg
	}
	r.turn(line)
	return true
}

// helpPromptCommands is /help's part for the prompt commands: each with
// its description and where it comes from; a file that cannot run says
// why.
func (r *REPL) helpPromptCommands() {
	o := r.out
	set := r.sess.Commands()
	o.println(o.bold.Sprint("Prompt commands") + o.dim.Sprint(" (.aci/commands, ~/.config/aci/commands, .claude/commands, skills)"))
	for _, c := range set.Commands {
		line := fmt.Sprintf("  %-18s %s", c.Usage(), sanitize(c.Description))
		if c.Scope != promptcmd.ScopeBuiltin {
			line += o.dim.Sprint(" (" + c.Scope + ")")
		}
		if c.Problem != "" {
			line = fmt.Sprintf("  %-18s %s", c.Usage(), o.yellow.Sprint("cannot run: "+sanitize(c.Problem))+o.dim.Sprint(" ("+sanitize(promptcmd.Shown(c.Path, r.cfg.Workdir))+")"))
		}
		o.println(line)
	}
	for _, n := range set.Notes {
		o.println(o.dim.Sprint("  " + sanitize(n)))
	}
}

// allCommandNames are the REPL's commands and the prompt commands of
// workdir, with their slash, sorted, each once.
func allCommandNames(workdir string) []string {
	names := commandNames()
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	for _, c := range promptcmd.Load(workdir, promptcmd.UserDir()).Commands {
		if n := "/" + c.Name; c.Problem == "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
