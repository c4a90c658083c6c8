package agent

import (
	"context"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// Hooks are the person's own checks around the loop (docs/protocol.md section
// 10; the session runs them with the hooks package). A session without
// hooks sets none and the loop pays nothing.
type Hooks interface {
	// BeforeCall runs before a call (PreToolUse): refused is the result
	// the model gets instead of the call running; the returned context
	// carries a permission decision for the windows' questions.
	BeforeCall(ctx context.Context, c protocol.Call, title string) (context.Context, *windows.Result)
	// AfterCall runs after a call that completed, ok or started, not one
	// denied or failed (PostToolUse): a note for the model, added to the
	// call's result.
	AfterCall(ctx context.Context, c protocol.Call, title string, out windows.Result) string
	// BeforeStop runs when the model answers without calls (Stop): a
	// message makes the model go on with it; active says this turn was
	// already made to go on by a Stop hook.
	BeforeStop(ctx context.Context, answer string, active bool) string
}

// maxStopHooks bounds how often Stop hooks make one turn go on.
const maxStopHooks = 8

// SetHooks gives the loop the session's hooks (nil: none).
func (a *Agent) SetHooks(h Hooks) { a.hooks = h }

// execute runs one call through the windows, with the hooks around it.
func (a *Agent) execute(ctx context.Context, c protocol.Call) windows.Result {
	if a.hooks == nil {
		return a.wm.Execute(ctx, c.WindowID, c.ActionID, c.Params)
	}
	title := a.titleOf(c.WindowID)
	hctx, refused := a.hooks.BeforeCall(ctx, c, title)
	if refused != nil {
		return *refused
	}
	out := a.wm.Execute(hctx, c.WindowID, c.ActionID, c.Params)
	if out.Status == protocol.StatusDenied || out.Status == protocol.StatusError {
		// As Claude Code's PostToolUse: only after the tool did its work,
		// never for an action refused or failed before it could.
		return out
	}
	if note := a.hooks.AfterCall(ctx, c, a.titleOf(c.WindowID), out); note != "" {
		out.Text += "\n" + note
	}
	return out
}

// stopHook asks the Stop hooks whether the turn may end with answer; it
// returns what the model is told to go on with, or "".
func (a *Agent) stopHook(ctx context.Context, answer string) string {
	if a.hooks == nil || a.stops >= maxStopHooks || ctx.Err() != nil {
		return ""
	}
	msg := a.hooks.BeforeStop(ctx, answer, a.stops > 0)
	if msg == "" {
		return ""
	}
	a.stops++
	a.emit(Event{Kind: EventNotice, Text: "a Stop hook makes the model go on: " + noticeOf(msg)})
	return "[aci: a Stop hook does not let you stop yet:]\n" + msg
}

// SetPreCompact gives the conversation what runs before it compresses the
// history: trigger is "manual" (/compact) or "auto".
func (a *Agent) SetPreCompact(f func(ctx context.Context, trigger, focus string)) {
	a.conv.preCompact = f
}

func (c *Conversation) beforeCompress(ctx context.Context, trigger, focus string) {
	if c.preCompact != nil {
		c.preCompact(ctx, trigger, focus)
	}
}
