package session

// The operations a session offers, described once. The REPL's slash
// commands, the HTTP routes and ACP's methods are bindings of this table:
// each front end looks an operation up here for its name, arguments and
// help, and calls the typed method it names. A test in each front end
// checks that every operation with a form there is bound (ui, serve, acp).

// Op is one operation of a session.
type Op struct {
	Name string // the operation's name: its slash command's, without the slash
	Args string // its arguments as /help shows them ("[focus]")
	Help string // one line
	// HTTP is its route on aci serve ("POST /api/sessions/{id}/compact");
	// "" where the API has none.
	HTTP string
	// ACP is its form for an editor: a method ("session/set_mode"), or
	// "/name", an available command the editor sends as prompt text; ""
	// where an editor cannot show it.
	ACP string
	// REPL says the REPL offers it as /Name (ask, steer, cancel and
	// approve are the REPL's typing, Ctrl-C and its questions).
	REPL bool
}

// Ops is every operation, in the order /help lists them.
var Ops = []Op{
	{Name: "ask", Args: "QUESTION", Help: "answer a question: one turn, to its result",
		HTTP: "POST /api/sessions/{id}/messages", ACP: "session/prompt"},
	{Name: "steer", Args: "MESSAGE", Help: "a message for the running turn, read at its next step",
		HTTP: "POST /api/sessions/{id}/messages"},
	{Name: "cancel", Help: "end the running turn: its model request, its command, a waiting question",
		HTTP: "POST /api/sessions/{id}/cancel", ACP: "session/cancel"},
	{Name: "approve", Args: "REQUEST yes|no", Help: "answer a question the session asks before an action",
		HTTP: "POST /api/sessions/{id}/approvals/{request_id}", ACP: "session/request_permission"},
	{Name: "reset", Help: "forget the conversation and its summary, close every window but the launcher", REPL: true},
	{Name: "diff", Args: "[N|undo N|tool [N]]", Help: "every file this session changed, against before it; show one, put one back, or open your diff_tool",
		HTTP: "GET /api/sessions/{id}/diff", REPL: true},
	{Name: "windows", Help: "list the open windows: id, app, title", HTTP: "GET /api/sessions/{id}", REPL: true},
	{Name: "show", Args: "ID", Help: "print a window as the model sees it", HTTP: "GET /api/sessions/{id}/windows/{window_id}", REPL: true},
	{Name: "compact", Args: "[focus]", Help: "compress the conversation into a summary now, keeping what focus names",
		HTTP: "POST /api/sessions/{id}/compact", ACP: "/compact", REPL: true},
	{Name: "model", Args: "[name]", Help: "list the server's models, or switch to one",
		HTTP: "POST /api/sessions/{id}/model", ACP: "/model", REPL: true},
	{Name: "rewind", Args: "[N]", Help: "go back to just before a question: files and conversation, or either (also Esc Esc)",
		HTTP: "POST /api/sessions/{id}/rewind", ACP: "/rewind", REPL: true},
	{Name: "effort", Args: "[low|medium|high|default]", Help: "show or set the model's reasoning effort",
		HTTP: "POST /api/sessions/{id}/effort", ACP: "/effort", REPL: true},
	{Name: "fork", Args: "[N]", Help: "continue in a new branch that keeps this session's first N turns (default: all)",
		HTTP: "POST /api/sessions/{id}/fork", REPL: true},
	{Name: "mode", Args: "[ask|default|plan|yes]", Help: "show the permission mode, or switch (Shift-Tab cycles default → ask → plan); Claude Code's names: default is its acceptEdits, ask its default, yes its bypassPermissions (both taken)",
		HTTP: "POST /api/sessions/{id}/mode", ACP: "session/set_mode", REPL: true},
	{Name: "plan", Help: "accept the plan the last turn ended with: default mode, and a turn carries it out",
		HTTP: "POST /api/sessions/{id}/plan/accept", ACP: "session/request_permission"},
	{Name: "commands", Help: "the workspace's prompt commands: /init, /review, command files, skills",
		HTTP: "GET /api/commands", ACP: "available_commands_update"},
	{Name: "export", Args: "[FORMAT]", Help: "the session as Markdown or JSON", HTTP: "GET /api/sessions/{id}/export"},
	{Name: "usage", Help: "tokens used in this session, and the last prompt's size against the compression threshold",
		HTTP: "GET /api/sessions/{id}", REPL: true},
}

// FindOp is the operation named name.
func FindOp(name string) (Op, bool) {
	for _, o := range Ops {
		if o.Name == name {
			return o, true
		}
	}
	return Op{}, false
}

// OpsOf are the operations with a form where has says so, in table order.
func OpsOf(has func(Op) bool) []Op {
	var out []Op
	for _, o := range Ops {
		if has(o) {
			out = append(out, o)
		}
	}
	return out
}
