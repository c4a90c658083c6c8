package web_test

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// An agent window on the page: listed once the agent starts, its line of
// actions updated while the child works (before the parent's turn goes
// on), its answer at the end.
func TestPageShowsAgentLive(t *testing.T) {
	ctx := browser(t)
	ai := fakeai.New(t)
	ai.Handle(func(req fakeai.Request) fakeai.Reply {
		step, child := req.Step(), req.ChildOf("look around")
		switch {
		case child && step == 1:
			return fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))}
		case child && step == 2:
			return fakeai.Reply{Content: fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "sleep 3; echo child-ran"}))}
		case child:
			return fakeai.Reply{Content: "The child says hello."}
		case step == 1:
			return fakeai.Reply{Content: fakeai.ToolCall(
				call("launcher", "open", map[string]any{"app": "agent", "target": "look around", "mode": "default"}),
				call("agent_1", "wait", map[string]any{}))}
		}
		return fakeai.Reply{Content: "Done."}
	})
	base, token := pageServer(t, ai, t.TempDir())
	showPage(t, ctx, base, token)
	ask(t, ctx, "send a helper")
	content := `(document.querySelector('[data-window="agent_1"] .win-content')?.textContent || '')`
	waitFor(t, ctx, "the agent window while its command runs", content+`.includes('bash_1.run running')`)
	if got := eval[string](t, ctx, content); strings.Contains(got, "hello") {
		t.Errorf("the answer before the child gave it: %q", got)
	}
	waitFor(t, ctx, "the agent's answer in its window", content+`.includes('The child says hello.')`)
	waitFor(t, ctx, "the turn's result", `!!document.querySelector('.turn .turn-foot')`)
}
