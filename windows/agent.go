package windows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/protocol"
)

// An agent window is a child conversation working on a task in the
// background (docs/protocol.md §5). Windows know nothing of the loop: the
// session starts the child through a Spawner and reports its progress to
// the window, which renders it. The parent's model reads only a one-line
// list of the child's actions and, at the end, its answer.

// AgentTask is what a child agent is asked to do.
type AgentTask struct {
	ID    string // its window's id, which marks its questions
	Task  string
	Model string   // "" is the parent's
	Mode  PermMode // the child's permission mode: plan, or what default narrows to under the parent's
	// Worktree: the child works in a new git worktree and branch of its
	// own (docs/protocol.md §11); the person merges or drops it.
	Worktree bool
}

// AgentProgress is told how a child goes; the agent window implements it.
// Its methods never block.
type AgentProgress interface {
	// Action says an action of the child began (status "running") or
	// ended with status.
	Action(callID, what, status string)
	// Words are the child's latest words (its last words if it fails).
	Words(text string)
	// End says the child is done: its answer, or err and its last words.
	End(answer string, err error)
}

// AgentRun is a running child.
type AgentRun interface {
	// Tell adds words to the child's running turn.
	Tell(text string) error
	// Stop ends the child and returns once it has ended.
	Stop()
}

// Spawner starts child agents; the session implements it with a child
// conversation and window manager of its own.
type Spawner interface {
	Spawn(ctx context.Context, task AgentTask, progress AgentProgress) (AgentRun, error)
}

// AgentApp opens agent windows through sp.
func AgentApp(sp Spawner) func(*Env) App {
	return func(env *Env) App {
		return App{
			Name:    "agent",
			Desc:    "a helper with its own context works on a task in the background; only its answer comes back (open's mode: plan, read-only, the default, or default; model; worktree: true for its own git worktree)",
			Target:  "the task, said fully",
			Started: true,
			Open: func(ctx context.Context, id, target string) (Window, string, error) {
				return openAgent(ctx, sp, env.Mode, id, target)
			},
		}
	}
}

// How an agent window's child goes (View.Progress).
const (
	AgentRunning  = "running"
	AgentAnswered = "answered"
	AgentFailed   = "failed"
)

// agentStep is one action of the child, as its one-line list shows it.
type agentStep struct {
	callID, what, status string
}

type agentWindow struct {
	id, task string
	mode     PermMode
	run      AgentRun
	done     chan struct{}

	mu     sync.Mutex
	steps  []agentStep
	words  string
	ended  bool
	answer string
	err    error
}

func openAgent(ctx context.Context, sp Spawner, parent *ModeSwitch, id, task string) (Window, string, error) {
	task = strings.TrimSpace(task)
	if task == "" {
		return nil, "", errors.New("an agent needs a task: open it with the task as target")
	}
	args := openArgsFrom(ctx)
	mode, note, err := agentMode(args.String("mode"), parent.Get())
	if err != nil {
		return nil, "", err
	}
	t := AgentTask{ID: id, Task: task, Model: args.String("model"), Mode: mode, Worktree: args.Bool("worktree")}
	w := &agentWindow{id: id, task: task, mode: mode, done: make(chan struct{})}
	run, err := sp.Spawn(ctx, t, w)
	if err != nil {
		return nil, "", err
	}
	w.mu.Lock()
	w.run = run
	w.mu.Unlock()
	if note == "" {
		note = string(mode) + " mode"
	}
	return w, note + "; running in the background (wait for its answer, or go on)", nil
}

func (w *agentWindow) ID() string  { return w.id }
func (w *agentWindow) App() string { return "agent" }

// Title is the task, on one line and short: the parent wrote it already.
func (w *agentWindow) Title() string { return shortLine(w.task, 80) }

func (w *agentWindow) Actions() []Action {
	return []Action{
		{ID: "wait", Desc: "wait for its answer (timeout default 300, max 600)", Mode: Sync, Run: w.wait, Params: []Param{
			{Name: "timeout_s", Type: Integer},
		}},
		{ID: "tell", Desc: "add words to its running turn", Mode: Sync, Run: w.tell, Params: []Param{
			{Name: "text", Type: String, Required: true},
		}},
		closeAction("stops it"),
	}
}

// Close stops the child; its answer, if any, goes with the window.
func (w *agentWindow) Close() {
	w.mu.Lock()
	run := w.run
	w.mu.Unlock()
	if run != nil {
		run.Stop()
	}
}

// maxAgentSteps bounds the action list: the latest are shown, the earlier
// counted.
const maxAgentSteps = 12

// View is one line of the child's actions and their states, then its
// answer (or why it failed, with its last words) once it has one.
func (w *agentWindow) View() View {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	progress := AgentRunning
	switch {
	case !w.ended:
	case w.err != nil:
		progress = AgentFailed
	default:
		progress = AgentAnswered
	}
	b.WriteString(progress)
	switch w.mode {
	case ModePlan:
		b.WriteString(" (plan: read-only)")
	case ModeAsk:
		b.WriteString(" (ask mode)")
	}
	fmt.Fprintf(&b, " · %d %s", len(w.steps), plural(len(w.steps), "action"))
	if len(w.steps) > 0 {
		b.WriteString(": ")
		steps := w.steps
		if len(steps) > maxAgentSteps {
			fmt.Fprintf(&b, "… %d earlier, ", len(steps)-maxAgentSteps)
			steps = steps[len(steps)-maxAgentSteps:]
		}
		for i, s := range steps {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(s.what)
			if s.status != protocol.StatusOK {
				b.WriteString(" " + s.status)
			}
		}
	}
	switch {
	case w.ended && w.err != nil:
		fmt.Fprintf(&b, "\nerror: %s", w.err)
		if w.words != "" {
			fmt.Fprintf(&b, "\nlast words: %s", w.words)
		}
	case w.ended:
		b.WriteString("\nanswer:\n" + w.answer)
	}
	return View{Content: b.String(), Progress: progress}
}

// Changes is the window's new content without its actions list: the
// whole of it is small, but the actions need not be said again.
func (w *agentWindow) Changes(prev, cur View) (string, bool) {
	if prev.Content == cur.Content {
		return "", true
	}
	return cur.Content, true
}

// Action records a step of the child.
func (w *agentWindow) Action(callID, what, status string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.steps) - 1; i >= 0; i-- {
		if w.steps[i].callID == callID {
			w.steps[i].status = status
			return
		}
	}
	w.steps = append(w.steps, agentStep{callID: callID, what: what, status: status})
}

// Words keeps the child's latest words.
func (w *agentWindow) Words(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	w.mu.Lock()
	w.words = shortLine(text, 400)
	w.mu.Unlock()
}

// End records how the child ended; the first end counts.
func (w *agentWindow) End(answer string, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return
	}
	w.ended, w.answer, w.err = true, strings.TrimSpace(answer), err
	for i := range w.steps {
		if w.steps[i].status == "running" {
			w.steps[i].status = "interrupted"
		}
	}
	close(w.done)
}

// wait blocks until the child ends, the timeout passes or the turn is
// cancelled. The answer itself is in the window: the result only says how
// it ended, so the parent's context holds the answer once.
func (w *agentWindow) wait(ctx context.Context, args Args) Result {
	timeout := time.Duration(args.Int("timeout_s", 300)) * time.Second
	timeout = min(max(timeout, time.Second), maxTimeout)
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		return OK("%s is still running after %s (its window shows its progress)", w.id, timeout)
	case <-ctx.Done():
		return Fail("not waited: the turn was interrupted")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		text := fmt.Sprintf("%s failed: %v", w.id, w.err)
		if w.words != "" {
			text += "; its last words: " + w.words
		}
		return Fail("%s", text)
	}
	return OK("%s answered (its answer is in its window)", w.id)
}

func (w *agentWindow) tell(ctx context.Context, args Args) Result {
	w.mu.Lock()
	ended, run := w.ended, w.run
	w.mu.Unlock()
	if ended || run == nil {
		return Fail("%s has ended; open another agent for more work", w.id)
	}
	if err := run.Tell(args.String("text")); err != nil {
		return Fail("%s: %v", w.id, err)
	}
	return OK("told %s", w.id)
}

// shortLine is s on one line, cut to n bytes at a rune boundary.
func shortLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// withAgentParams adds open's agent parameters where the agent app is
// offered (a child's launcher has none, and pays nothing for them).
func (l *launcher) withAgentParams(actions []Action) []Action {
	if _, ok := l.m.apps["agent"]; ok {
		actions[0].Params = append(actions[0].Params,
			Param{Name: "mode", Type: String, Desc: "agent only: plan (read-only, the default) or default"},
			Param{Name: "model", Type: String, Desc: "agent only: its model"},
			Param{Name: "worktree", Type: Boolean, Desc: "agent only: true works in a new git worktree and branch, apart from the workspace; the person merges it"})
	}
	return actions
}

// openArgsKey carries open's other parameters to an app's Open.
type openArgsKey struct{}

// withOpenArgs puts open's parameters into ctx.
func withOpenArgs(ctx context.Context, args Args) context.Context {
	return context.WithValue(ctx, openArgsKey{}, args)
}

func openArgsFrom(ctx context.Context) Args {
	args, _ := ctx.Value(openArgsKey{}).(Args)
	return args
}
