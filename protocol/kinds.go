package protocol

// The one table of what an action is, in the four vocabularies that
// name it where they overlap (docs/protocol.md §10): the kind of the
// action (ACP's tool kinds, which the REPL, the page and ACP show), the
// kind of a question asked about it (windows.ApprovalRequest.Kind), the
// kind of the rule that answers such questions (bash:, web:, mcp:) and
// Claude Code's tool whose permission syntax says the same rule.

// Action kinds: ACP's tool kinds that aci's calls are.
const (
	KindRead    = "read"
	KindEdit    = "edit"
	KindExecute = "execute"
	KindFetch   = "fetch"
	KindOther   = "other"
)

// Claude Code's tool names that aci's calls map to (hooks' tool_name,
// rules written in Claude Code's syntax).
const (
	ToolBash      = "Bash"
	ToolRead      = "Read"
	ToolEdit      = "Edit"
	ToolWrite     = "Write"
	ToolWebFetch  = "WebFetch"
	ToolWebSearch = "WebSearch"
	ToolMCP       = "mcp__" // mcp__SERVER__TOOL
)

// Question kinds: what a question about an action is about.
const (
	AskCommand = "command" // a command to run
	AskFile    = "file"    // a file to open or write outside the rules
	AskFetch   = "fetch"   // an address to fetch
	AskNetwork = "network" // a connection a running command makes
	AskTool    = "tool"    // an MCP server's tool, or starting the server
)

// Rule kinds (tools/rules).
const (
	RuleBash = "bash"
	RuleWeb  = "web"
	RuleMCP  = "mcp"
)

// AskKind is one question kind in every vocabulary.
type AskKind struct {
	Ask  string // the question's kind
	Kind string // the action kind an editor shows the question as
	Rule string // the rule kind that answers it; "" when no rule can
	Tool string // Claude Code's tool whose rules say the same; "" none
}

// AskKinds is the table, one row per question kind.
var AskKinds = []AskKind{
	{AskCommand, KindExecute, RuleBash, ToolBash},
	{AskFile, KindEdit, "", ""},
	{AskFetch, KindFetch, RuleWeb, ToolWebFetch},
	{AskNetwork, KindOther, RuleWeb, ToolWebFetch},
	{AskTool, KindOther, RuleMCP, ToolMCP},
}

// AskKindOf is the row of question kind ask; an unknown one is of kind
// other and answered by no rule.
func AskKindOf(ask string) AskKind {
	for _, k := range AskKinds {
		if k.Ask == ask {
			return k
		}
	}
	return AskKind{Ask: ask, Kind: KindOther}
}

// RuleKinds are the rule kinds, in the table's order, each once.
func RuleKinds() []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range AskKinds {
		if k.Rule != "" && !seen[k.Rule] {
			seen[k.Rule] = true
			out = append(out, k.Rule)
		}
	}
	return out
}
