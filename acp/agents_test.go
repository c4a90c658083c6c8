package acp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// An agent's open is a tool call whose updates carry the child's
// progress, and which completes with its answer.
func TestACPAgentProgressInItsToolCall(t *testing.T) {
	srv := fakeai.New(t)
	srv.Handle(func(req fakeai.Request) fakeai.Reply {
		step, child := req.Step(), req.ChildOf("look around")
		switch {
		case child && step == 1:
			return fakeai.Reply{Content: fakeai.ToolCall(openBash)}
		case child:
			return fakeai.Reply{Content: "The child says hello."}
		case step == 1:
			return fakeai.Reply{Content: fakeai.ToolCall(
				call("launcher", "open", map[string]any{"app": "agent", "target": "look around"}),
				call("agent_1", "wait", map[string]any{}))}
		}
		return fakeai.Reply{Content: "Done."}
	})
	e := startInProcess(t, srv, 5*time.Second)
	e.initialize(false, false)
	sid := e.newSession(t.TempDir())
	if got := e.prompt(sid, "send a helper"); got != "end_turn" {
		t.Fatalf("stopReason %q", got)
	}
	var open string
	for _, u := range kinds(e.allUpdates(), "tool_call") {
		if strings.Contains(string(must(json.Marshal(u["rawInput"]))), `"agent"`) {
			open, _ = u["toolCallId"].(string)
		}
	}
	if open == "" {
		t.Fatal("no tool call for the agent's open")
	}
	e.until("the open's call completed", func() bool {
		for _, u := range kinds(e.updates, "tool_call_update") { // until holds e.mu
			if u["toolCallId"] == open && u["status"] == "completed" {
				return true
			}
		}
		return false
	})
	var contents []string
	var last map[string]any
	for _, u := range kinds(e.allUpdates(), "tool_call_update") {
		if u["toolCallId"] == open {
			contents = append(contents, string(must(json.Marshal(u["content"]))))
			last = u
		}
	}
	all := strings.Join(contents, "\n")
	if !strings.Contains(all, "launcher.open") || !strings.Contains(all, "The child says hello.") {
		t.Errorf("the open's updates did not carry the child's progress:\n%s", all)
	}
	if last["status"] != "completed" || !strings.Contains(contents[len(contents)-1], "hello") {
		t.Errorf("the open's last update: %v", last)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
