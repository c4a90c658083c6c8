package session

import (
	"context"
	"errors"
	"strings"

	"github.com/aci-dev/aci/hooks"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/mcp"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/windows"
)

// errPromptBlocked ends a turn whose question a UserPromptSubmit hook
// dropped.
var errPromptBlocked = errors.New("the question was dropped by a UserPromptSubmit hook")

// trustProject decides whether the project's hooks and MCP servers may
// run: the person trusted this very code (now, or before), or --trust.
// Untrusted, they are left out with one notice, which says what changed
// when the folder was trusted before. Trusted, the workspace files they
// run are kept read-only for contained commands and checked again
// before each runs (trust.go).
func (s *Session) trustProject(opt Options, mcpConfig *mcp.Config) {
	code := folderCode(s.workdir, s.project, s.envAllow)
	s.code = code
	s.trusted = opt.Trust || code.Trusted(s.workdir)
	// The programs aci starts on its own (language servers) may take
	// their pieces from the workspace only where the person said so: a
	// folder that defines nothing was never asked about.
	s.folderTrusted = opt.Trust || (code.Hash != "" && s.trusted)
	if code.Hash == "" {
		return
	}
	if s.trusted {
		sandbox.For(s.workdir).ProtectTrusted(code.Files.Paths()...)
		return
	}
	for name, sc := range mcpConfig.Servers {
		if sc.FromWorkspace {
			delete(mcpConfig.Servers, name)
		}
	}
	why := "the folder is not trusted"
	if ch := code.Changes(s.workdir); len(ch) > 0 {
		why = "what they would run changed since you trusted the folder (" + strings.Join(ch, "; ") + ")"
	}
	s.startNotice("this folder's hooks and MCP servers are not run: " + why + " (" + strings.Join(code.Lines, "; ") +
		"); trust it when aci asks at start, or give --trust")
}

// startNotice says text now (Options.Say) and, as a notice event, at the
// start of the first turn: stream-json, the page and ACP show it there.
func (s *Session) startNotice(text string) {
	s.say(text)
	s.mu.Lock()
	s.startNotices = append(s.startNotices, Notice{Kind: "trust", Text: text, Client: true})
	s.mu.Unlock()
}

// publishStartNotices publishes the notices kept for the first turn.
func (s *Session) publishStartNotices() { s.publishKept(&s.startNotices) }

// publishKept publishes, in order, the notices kept in *list (under mu),
// which it empties.
func (s *Session) publishKept(list *[]Notice) {
	s.mu.Lock()
	kept := *list
	*list = nil
	s.mu.Unlock()
	for _, n := range kept {
		s.publish(n)
	}
}

// setupHooks gives the agent the hooks of the settings (the project's
// only in a trusted folder); with none, nothing is set and nothing costs.
func (s *Session) setupHooks() {
	var groups []settings.HookGroup
	for _, g := range s.policy.Hooks {
		if !g.Project || s.trusted {
			groups = append(groups, g)
		}
	}
	r := hooks.New(groups, hooks.Config{
		SessionID: s.ID,
		TranscriptPath: func() string {
			if s.log == nil {
				return ""
			}
			return s.log.Path
		},
		Cwd: s.workdir, ProjectDir: sandbox.WorkspaceRoot(s.workdir),
		Mode:   func() string { return s.mode.Get().ClaudeName() },
		Redact: s.f.cfg.Agent.Redact,
		Notice: func(line string) { s.publish(Notice{Kind: "hook", Text: line}) },
		Verify: func(command string) error { return s.code.VerifyHook(command, s.workdir) },
		ProjectEnv: func(env []string) []string {
			return s.envAllow.Environ(env)
		},
	})
	if r == nil {
		return
	}
	s.hooks = r
	s.agent.SetHooks(sessionHooks{s: s, r: r})
	if r.Has("PreCompact") {
		s.agent.SetPreCompact(func(ctx context.Context, trigger, focus string) {
			r.Run(ctx, "PreCompact", "", map[string]any{"trigger": trigger, "custom_instructions": focus})
		})
	}
}

// sessionHooks are the agent's Hooks, run by the hooks package.
type sessionHooks struct {
	s *Session
	r *hooks.Runner
}

// tool is c as hooks see it, by the description every front end reads
// (the table of calls in windows).
func (h sessionHooks) tool(c protocol.Call) hooks.Tool {
	d := h.s.wm.Describe(c.WindowID, c.ActionID, c.Params)
	return hooks.NewTool(d.Tool, d.Input, c.WindowID, c.ActionID, c.Params)
}

func (h sessionHooks) BeforeCall(ctx context.Context, c protocol.Call, title string) (context.Context, *windows.Result) {
	if !h.r.Has("PreToolUse") {
		return ctx, nil
	}
	t := h.tool(c)
	out := h.r.Run(ctx, "PreToolUse", t.Name, map[string]any{"tool_name": t.Name, "tool_input": t.Input, "aci_call": t.Call, "tool_use_id": c.ID})
	if out.Block || out.Stop {
		why := strings.TrimSpace(out.Reason + " " + out.StopReason)
		if why == "" {
			why = "no reason given"
		}
		return ctx, &windows.Result{Status: protocol.StatusDenied, Text: "blocked by a PreToolUse hook of " + out.Whose() + ": " + why}
	}
	if out.Decision != "" {
		ctx = windows.WithHookDecision(ctx, out.Decision)
	}
	return ctx, nil
}

func (h sessionHooks) AfterCall(ctx context.Context, c protocol.Call, title string, res windows.Result) string {
	if !h.r.Has("PostToolUse") {
		return ""
	}
	t := h.tool(c)
	out := h.r.Run(ctx, "PostToolUse", t.Name, map[string]any{"tool_name": t.Name, "tool_input": t.Input, "aci_call": t.Call,
		"tool_use_id": c.ID, "tool_response": hooks.Response(t, string(res.Status), res.Text, res.Output)})
	var note []string
	if out.Block && out.Reason != "" {
		note = append(note, "[a PostToolUse hook of "+out.Whose()+" says:] "+out.Reason)
	}
	if out.Context != "" {
		note = append(note, "[context from a PostToolUse hook:] "+out.Context)
	}
	return strings.Join(note, "\n")
}

func (h sessionHooks) BeforeStop(ctx context.Context, answer string, active bool) string {
	if !h.r.Has("Stop") {
		return ""
	}
	out := h.r.Run(ctx, "Stop", "", map[string]any{"stop_hook_active": active, "last_assistant_message": answer})
	if !out.Block {
		return ""
	}
	if out.Reason == "" {
		return "(the hook gave no reason)"
	}
	return out.Reason
}

// promptHooks runs UserPromptSubmit: the question with the context the
// hooks add, or errPromptBlocked with their reason said to the person.
func (s *Session) promptHooks(ctx context.Context, question string) (string, error) {
	if !s.hooks.Has("UserPromptSubmit") {
		return question, nil
	}
	out := s.hooks.Run(ctx, "UserPromptSubmit", "", map[string]any{"prompt": question})
	if out.Block || out.Stop {
		why := strings.TrimSpace(out.Reason + " " + out.StopReason)
		s.publish(Notice{Kind: "hook", Text: "a UserPromptSubmit hook dropped the question: " + why})
		return "", errPromptBlocked
	}
	return withContext(question, out.Context), nil
}

// sessionStart runs SessionStart; what it prints goes before the first
// question.
func (s *Session) sessionStart(ctx context.Context, source string) {
	if !s.hooks.Has("SessionStart") {
		return
	}
	out := s.hooks.Run(ctx, "SessionStart", "", map[string]any{"source": source})
	s.mu.Lock()
	s.startContext = out.Context
	s.mu.Unlock()
}

// sessionEnd runs SessionEnd as the session closes.
func (s *Session) sessionEnd() {
	if s.hooks.Has("SessionEnd") {
		s.hooks.Run(context.Background(), "SessionEnd", "", map[string]any{"reason": "exit"})
	}
}

// notify runs Notification hooks, in the background, when aci waits for
// the person.
func (s *Session) notify(message string) {
	if s.hooks.Has("Notification") {
		go s.hooks.Run(context.Background(), "Notification", "", map[string]any{"message": message})
	}
}

// withHookContext is the question with the session's start context, the
// first time, and what UserPromptSubmit hooks added.
func (s *Session) withHookContext(ctx context.Context, question string) (string, error) {
	s.mu.Lock()
	start := s.startContext
	s.startContext = ""
	s.mu.Unlock()
	q, err := s.promptHooks(ctx, question)
	if err != nil {
		return "", err
	}
	return withContext(q, start), nil
}

func withContext(question, context string) string {
	if context == "" {
		return question
	}
	return question + "\n\n<hook-context>\n" + context + "\n</hook-context>"
}

// HasHooks reports whether any hook runs in this session.
func (s *Session) HasHooks() bool { return s.hooks != nil }
