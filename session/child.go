package session

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aci-dev/aci/tools/worktree"
	"github.com/aci-dev/aci/windows"
)

// Agent windows (docs/protocol.md §5): each runs a child session built by the
// parent's factory, in the same workspace, with the same guard,
// containment and approvals, but its own conversation and window manager
// (with no agent app: children do not nest). The child's events become
// the window's progress; the parent's model reads only that window.

// childSpawner is the parent session's windows.Spawner.
type childSpawner struct{ s *Session }

// child is one running child conversation.
type child struct {
	parent   *Session
	id       string
	s        *Session
	progress windows.AgentProgress
	cancel   func()
	ended    chan struct{}
	stopOnce sync.Once

	mu    sync.Mutex
	words string // the reply being written, for the child's last words

	// wt is the worktree the child works in (worktree: true), or nil.
	wt *worktree.Worktree
}

// childIntro is what the child is told before its task.
const childIntro = "You are a helper agent: another agent started you for one task and shares your workspace. " +
	"Work on the task below, then reply with your answer alone; it is all the other agent will read. " +
	"You cannot open agents yourself."

// childModeNote tells the child its permission mode, in place of the
// mode note a session's first question gets (withModeNote).
func childModeNote(m windows.PermMode) string {
	if m == windows.ModePlan {
		return " You are in plan mode: " + m.Describe() + "; read and run reading commands, change nothing, and answer with what you found."
	}
	return " Permission mode " + string(m) + ": " + m.Describe() + "."
}

// Spawn builds the child and starts its one turn in the background.
func (sp childSpawner) Spawn(ctx context.Context, t windows.AgentTask, progress windows.AgentProgress) (windows.AgentRun, error) {
	parent := sp.s
	opt := parent.opt
	opt.child = true
	opt.spend, opt.Answer = parent.spend, nil
	opt.Mode, opt.modeLimit = t.Mode, parent.mode
	opt.Resume, opt.ResumeID = false, ""
	opt.Say = func(string) {}
	opt.Approver = nil
	opt.Model = t.Model
	if opt.Model == "" {
		opt.Model = parent.model
		if ms, ok := parent.client.(modelSetter); ok {
			opt.Model = ms.Model()
		}
	}
	c := &child{parent: parent, id: t.ID, progress: progress, ended: make(chan struct{})}
	if t.Worktree {
		// A new worktree beside the repository: the child's changes stay
		// there until the person merges them.
		wt, err := worktree.New(parent.workdir, childWorktreeName(parent.ID(), t.ID))
		if err != nil {
			return nil, fmt.Errorf("start the agent in a worktree: %w", err)
		}
		c.wt = &wt
		opt.Workdir = wt.Path
	}
	opt.Events = c.event
	parentEnv := parent.opt.Env
	opt.Env = func(env *windows.Env) {
		if parentEnv != nil {
			parentEnv(env)
		}
		env.Approver = windows.ApproverFunc(func(ctx context.Context, req windows.ApprovalRequest) windows.Decision {
			return parent.childAsk(ctx, t.ID, req)
		})
	}
	cs, err := parent.f.build(opt)
	if err != nil {
		return nil, fmt.Errorf("start the agent: %w", err)
	}
	c.s = cs
	text := childIntro + childModeNote(cs.mode.Get()) + "\n\nTask: " + t.Task
	// The turn begins here, not in the goroutine: a tell in the same batch
	// finds it running.
	runCtx, n, err := cs.begin(context.Background(), t.Task)
	if err != nil {
		cs.Close()
		return nil, fmt.Errorf("start the agent: %w", err)
	}
	c.cancel = cs.Cancel
	go c.run(runCtx, n, Prompt{Typed: t.Task, Text: text})
	return c, nil
}

// run answers the task and tells the window how it went.
func (c *child) run(ctx context.Context, n int, p Prompt) {
	defer close(c.ended)
	defer c.s.Close()
	defer func() {
		if r := recover(); r != nil {
			c.progress.End("", errors.New("internal error in the agent"))
		}
		c.parent.drawAgent(c.id, false)
	}()
	var res Result
	answer, err := c.s.turnResult(ctx, n, p, &res)
	// The child's events reach c.event from its own queue: once flushed,
	// its words are all in (its last words, on a failure).
	c.s.flushEvents()
	c.parent.addChildUsage(res.Usage)
	if c.wt != nil {
		answer += worktreeNote(*c.wt)
	}
	switch {
	case err == nil:
		c.progress.End(answer, nil)
	case res.Outcome == Interrupted:
		c.progress.End("", errors.New("stopped"))
	case res.Error != "":
		c.progress.End("", errors.New(res.Error))
	default:
		c.progress.End("", err)
	}
}

// event turns the child's events into the window's progress.
func (c *child) event(e Event) {
	switch e := e.(type) {
	case StateEvent:
		if e.State == StateAwaitingModel {
			c.mu.Lock()
			c.words = ""
			c.mu.Unlock()
		}
		return
	case Text:
		if e.Reasoning || e.Calling || e.Text == "" {
			return
		}
		c.mu.Lock()
		c.words += e.Text
		words := c.words
		c.mu.Unlock()
		c.progress.Words(words)
		return
	case ToolCall:
		c.progress.Action(e.Call.ID, e.Call.WindowID+"."+e.Call.ActionID, "running")
		c.parent.publish(AgentStep{Agent: c.id, CallID: e.Call.ID, Title: e.Described("").Title, Status: "running"})
	case ToolResult:
		c.progress.Action(e.Call.ID, e.Call.WindowID+"."+e.Call.ActionID, e.Result.Status)
		c.parent.publish(AgentStep{Agent: c.id, CallID: e.Call.ID, Status: e.Result.Status})
	default:
		return
	}
	c.parent.drawAgent(c.id, true)
}

// Tell adds words to the child's running turn.
func (c *child) Tell(text string) error {
	_, err := c.s.Steer(text)
	if errors.Is(err, ErrIdle) || errors.Is(err, ErrClosed) {
		return errors.New("it has ended")
	}
	return err
}

// Stop cancels the child's turn and waits for its end.
func (c *child) Stop() {
	c.stopOnce.Do(c.cancel)
	<-c.ended
}

// childAsk puts a child's question to the person as the parent's are
// put, marked with the child's window.
func (s *Session) childAsk(ctx context.Context, id string, req windows.ApprovalRequest) windows.Decision {
	req.Reason = fmt.Sprintf("%s (asked by %s, in its %s)", req.Reason, id, req.WindowID)
	req.WindowID = id
	// One child's question at a time: two at once would share a terminal.
	s.mu.Lock()
	if s.childAsking == nil {
		s.childAsking = make(chan struct{}, 1)
	}
	turn := s.childAsking
	s.mu.Unlock()
	select {
	case turn <- struct{}{}:
		defer func() { <-turn }()
	case <-ctx.Done():
		return windows.Decision{By: "aci", Message: "the agent was stopped before its question was asked"}
	}
	if s.opt.Approver != nil {
		if !s.Running() {
			// Between turns the terminal reads the next question, not answers.
			return windows.Decision{By: "aci", Message: "the parent's turn has ended, and no one answers between turns"}
		}
		return s.approve(ctx, req)
	}
	d := s.ask(ctx, req)
	if !s.Running() {
		s.setState(StateIdle) // asking left the state at executing: the parent's turn has ended
	}
	return d
}

// drawAgent sends agent window id as it is now to those watching.
func (s *Session) drawAgent(id string, running bool) {
	for _, w := range s.wm.Windows() {
		if w.ID() == id {
			redact := s.f.cfg.Agent.Redact
			v := w.View()
			s.publish(Window{ID: id, App: w.App(), Title: redact(w.Title()), Content: eventContent(redact(v.Content)), Running: running, Progress: v.Progress})
			return
		}
	}
}

// stopChildren stops every running child: the parent's turn was
// interrupted. Their windows stay, saying they were stopped.
func (s *Session) stopChildren() {
	for _, w := range s.wm.Windows() {
		if w.App() == "agent" {
			w.Close()
		}
	}
}

// addChildUsage counts a child's tokens as the parent's: in the session's
// totals, and in the result of the parent's turn running now or next.
func (s *Session) addChildUsage(u Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.usage.PromptTokens += u.PromptTokens
	s.usage.CompletionTokens += u.CompletionTokens
	s.usage.CachedTokens += u.CachedTokens
	s.childUsage = append(s.childUsage, u)
}

// takeChildUsage adds the children's usage not yet reported to a turn's.
func (s *Session) takeChildUsage(u *Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.childUsage {
		u.PromptTokens += c.PromptTokens
		u.CompletionTokens += c.CompletionTokens
		u.CachedTokens += c.CachedTokens
	}
	s.childUsage = nil
}

// childWorktreeName is an agent window's worktree name: the parent
// session's id and the window's, unique in the repository.
func childWorktreeName(parentID, windowID string) string {
	return "agent-" + parentID + "-" + windowID
}

// worktreeNote tells the parent where the child's changes are: nothing is
// merged unasked.
func worktreeNote(wt worktree.Worktree) string {
	return fmt.Sprintf("\n\n[Its changes are in the worktree %s on branch %s, not in the workspace. Nothing is merged: the person merges them with `aci worktree merge %s` or drops them with `aci worktree drop %s`.]",
		wt.Root(), wt.Branch, wt.Name, wt.Name)
}

// AgentStep is an action of an agent window's child as it begins (Status
// "running", with its title) and ends (its result's status), for a
// terminal to show live under the agent, as Claude Code shows a
// subagent's tool uses. The page and editors follow the agent's window
// instead: it is on no wire and not stored (no Type).
type AgentStep struct {
	Agent, CallID, Title, Status string
}

func (AgentStep) Type() string { return "" }
func (AgentStep) event()       {}
