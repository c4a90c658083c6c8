package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aci-dev/aci/session"
)

// command is one slash command. /help, Tab completion and dispatch all read
// the commands table, so a new command (such as /compact) is one more entry
// there, with nothing else to touch.
type command struct {
	name    string   // without the slash
	aliases []string // also without
	args    string   // how /help shows its arguments, e.g. "[focus]"
	help    string   // one line
	// run does it; arg is the rest of the line, trimmed. It returns true
	// to leave the REPL.
	run func(r *REPL, arg string) bool
}

var commands []command

// init fills the table: /help reads it, so it cannot be a plain initializer.
func init() {
	commands = []command{
		{name: "help", help: "list the commands and keys", run: (*REPL).cmdHelp},
		op("reset", (*REPL).cmdReset, "new"),
		{name: "clear", help: "clear the screen and start a new conversation (as /reset does)", run: (*REPL).cmdClear},
		{name: "undo", help: "put back the files the last turn changed (again: the turn before)", run: (*REPL).cmdUndo},
		op("diff", (*REPL).cmdDiff),
		op("windows", (*REPL).cmdWindows),
		op("show", (*REPL).cmdShow),
		op("compact", (*REPL).cmdCompact),
		op("model", (*REPL).cmdModel),
		op("rewind", (*REPL).cmdRewind),
		op("effort", (*REPL).cmdEffort),
		op("fork", (*REPL).cmdFork),
		{name: "serve", args: "[host:port]", help: "serve this session to the web page (in this process): watch it live, answer its questions", run: (*REPL).cmdServe},
		op("mode", (*REPL).cmdMode),
		{name: "permissions", args: "[remove N]", help: "list the rules that allow or deny without asking; remove one", run: (*REPL).cmdPermissions},
		op("usage", (*REPL).cmdUsage),
		{name: "status", help: "model, server, sandbox, limits on each command, session id and usage", run: (*REPL).cmdStatus},
		{name: "exit", aliases: []string{"quit"}, help: "leave aci", run: func(*REPL, string) bool { return true }},
	}
}

// op is the REPL's binding of the session's operation name: its name,
// arguments and help are the table's (session/ops.go); run is how the
// REPL shows it.
func op(name string, run func(r *REPL, arg string) bool, aliases ...string) command {
	o, ok := session.FindOp(name)
	if !ok || !o.REPL {
		panic("ui: no REPL operation " + name + " in session.Ops")
	}
	return command{name: o.Name, aliases: aliases, args: o.Args, help: o.Help, run: run}
}

// parseSlash splits "/name rest" when the line is a command. A line such as
// "/etc/hosts is wrong" is a message, not a command.
func parseSlash(line string) (name, arg string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return "", "", false
	}
	word, rest, _ := strings.Cut(line[1:], " ")
	if word == "" {
		return "", "", false
	}
	for _, c := range word {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':' || c == '.') {
			return "", "", false
		}
	}
	return strings.ToLower(word), strings.TrimSpace(rest), true
}

func findCommand(name string) *command {
	for i, c := range commands {
		if c.name == name {
			return &commands[i]
		}
		for _, a := range c.aliases {
			if a == name {
				return &commands[i]
			}
		}
	}
	return nil
}

// command runs a slash command; true means leave.
func (r *REPL) command(name, arg string) bool {
	c := findCommand(name)
	if c == nil && r.runPromptCommand(name, arg) {
		return false
	}
	if c == nil {
		r.out.println(r.out.yellow.Sprint("unknown command /"+sanitize(name)) + r.out.dim.Sprint(" · /help lists the commands"))
		return false
	}
	return c.run(r, arg)
}

// commandNames are every name and alias with its slash, sorted.
func commandNames() []string {
	var names []string
	for _, c := range commands {
		names = append(names, "/"+c.name)
		for _, a := range c.aliases {
			names = append(names, "/"+a)
		}
	}
	sort.Strings(names)
	return names
}

func (r *REPL) cmdHelp(string) bool {
	o := r.out
	o.println(o.bold.Sprint("Commands"))
	for _, c := range commands {
		name := "/" + c.name
		if c.args != "" {
			name += " " + c.args
		}
		line := fmt.Sprintf("  %-18s %s", name, c.help)
		if len(c.aliases) > 0 {
			line += o.dim.Sprint(" (also /" + strings.Join(c.aliases, ", /") + ")")
		}
		o.println(line)
	}
	r.helpPromptCommands()
	o.println(o.bold.Sprint("Keys"))
	for _, k := range [][2]string{
		{"Enter", "send; a line ending in \\ continues on the next"},
		{"Ctrl-C", "cancel the running turn; twice at an empty prompt to exit"},
		{"Ctrl-D", "exit, at an empty prompt"},
		{"Ctrl-R", "search the input history"},
		{"Esc Esc", "at an empty prompt: rewind to before a question (/rewind)"},
		{"Ctrl-J, Esc Enter", "a new line in the message"},
		{"Tab", "complete a command, or a path after @"},
		{"@path", "show the model a file (opened in a file window)"},
		{"!command", "run a command yourself; the model sees its output"},
	} {
		o.println(fmt.Sprintf("  %-18s %s", k[0], k[1]))
	}
	return false
}

func (r *REPL) cmdReset(string) bool {
	r.sess.Reset()
	r.out.note("conversation cleared; all windows closed but the launcher")
	return false
}

func (r *REPL) cmdWindows(string) bool {
	for _, w := range r.sess.WindowList() {
		r.out.println(fmt.Sprintf("  %-14s %-10s %s", w.ID, w.App, sanitize(w.Title)))
	}
	return false
}

func (r *REPL) cmdUsage(string) bool {
	s, w := r.sess.Stats()
	limit := r.cfg.CompressTokens
	cached := ""
	if s.CachedTokens > 0 {
		cached = fmt.Sprintf(" (%d cached)", s.CachedTokens)
	}
	lines := []string{
		fmt.Sprintf("  model calls        %d", s.Steps),
		fmt.Sprintf("  prompt tokens      %d%s", s.PromptTokens, cached),
		fmt.Sprintf("  completion tokens  %d", s.CompletionTokens),
	}
	last := fmt.Sprintf("  last prompt        %d tokens", s.LastPrompt)
	if s.LastCached > 0 {
		last += fmt.Sprintf(", %d cached", s.LastCached)
	}
	if limit > 0 {
		last += fmt.Sprintf(" of %d before compression (%d%%)", limit, s.LastPrompt*100/limit)
	}
	lines = append(lines, last)
	if w.Tokens > 0 {
		lines = append(lines, "  context window     "+w.Use(s.LastPrompt))
	}
	if s.Rebases > 0 {
		lines = append(lines, fmt.Sprintf("  rebases            %d (history rewritten without superseded window renderings)", s.Rebases))
	}
	lines = append(lines, r.usageMoney(s.Cost)...)
	for _, l := range lines {
		r.out.println(l)
	}
	return false
}

// cmdCompact compresses on demand; Ctrl-C cancels it like a turn.
func (r *REPL) cmdCompact(focus string) bool {
	ctx, end := r.beginWork()
	defer end()
	_, err := r.sess.Compact(ctx, focus)
	r.out.endTurn()
	switch {
	case err == nil: // the compressed line came with the event
	case ctx.Err() != nil:
		r.out.println(r.out.yellow.Sprint("⊘ interrupted"))
	default:
		r.out.fail(r.cfg.Describe(err))
	}
	return false
}

// IsREPLCommand reports whether name (no slash) is one of the REPL's own
// commands, which pipe mode cannot run.
func IsREPLCommand(name string) bool { return findCommand(name) != nil }
