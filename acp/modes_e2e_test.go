package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The editor sees aci's modes in session/new's answer, switches to plan
// with session/set_mode (a current_mode_update follows), and the next
// write is refused; asked at the end whether to accept the plan, it says
// yes: the mode goes back to default and the plan is carried out within
// the same prompt.
func TestACPModesPlanAndAccept(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	target := filepath.Join(dir, "plan.txt")
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "file", "target": "plan.txt"}),
			call("file_1", "write", map[string]any{"content": "too early\n"}),
		)},
		fakeai.Reply{Content: "Plan:\n1. write plan.txt"},
		fakeai.Reply{Content: fakeai.ToolCall(call("file_1", "write", map[string]any{"content": "done\n"}))},
		fakeai.Reply{Content: "carried out"},
	)
	e := startACP(t, dir, srv, "HOME="+home)
	var asked []string
	e.setHandler(func(m rpcMsg) (any, error) {
		if m.Method != "session/request_permission" {
			return nil, nil
		}
		asked = append(asked, string(m.Params))
		// Only the plan is asked about here: its first option carries it out.
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}, nil
	})
	e.initialize(false, false)
	var res struct {
		SessionID string `json:"sessionId"`
		Modes     struct {
			CurrentModeID  string                `json:"currentModeId"`
			AvailableModes []struct{ ID string } `json:"availableModes"`
		} `json:"modes"`
	}
	e.call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}}, &res)
	if res.Modes.CurrentModeID != "default" || len(res.Modes.AvailableModes) != 3 {
		t.Fatalf("modes %+v", res.Modes)
	}
	e.call("session/set_mode", map[string]any{"sessionId": res.SessionID, "modeId": "plan"}, nil)
	e.until("a current_mode_update to plan", func() bool {
		for _, u := range e.updates {
			if u["sessionUpdate"] == "current_mode_update" && u["currentModeId"] == "plan" {
				return true
			}
		}
		return false
	})
	if m := e.wait(e.send("session/set_mode", map[string]any{"sessionId": res.SessionID, "modeId": "yes"})); m.Error == nil {
		t.Error("mode yes was taken from the editor")
	}
	if got := e.prompt(res.SessionID, "make plan.txt"); got != "end_turn" {
		t.Fatalf("stopReason %q", got)
	}
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once (the plan): %v", len(asked), asked)
	}
	msgs := srv.Requests()[1].Messages
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "refused in plan mode") {
		t.Errorf("the write in plan mode was not refused:\n%s", got)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "done\n" {
		t.Errorf("after accepting: %q, %v", b, err)
	}
	var modes []any
	for _, u := range e.allUpdates() {
		if u["sessionUpdate"] == "current_mode_update" {
			modes = append(modes, u["currentModeId"])
		}
	}
	if len(modes) != 2 || modes[1] != "default" {
		t.Errorf("mode updates %v, want plan then default", modes)
	}
}

// "Always allow in this project" keeps a rule: a new session runs the
// same command without asking the editor.
func TestACPAlwaysForThisProject(t *testing.T) {
	dir, home, xdg := t.TempDir(), t.TempDir(), t.TempDir()
	run := func() []fakeai.Reply {
		return []fakeai.Reply{
			{Content: fakeai.ToolCall(
				openBash,
				call("bash_1", "run", map[string]any{"command": "touch made.txt"}),
			)},
			{Content: "done"},
		}
	}
	srv := fakeai.New(t, append(run(), run()...)...)
	e := startACP(t, dir, srv, "HOME="+home, "XDG_CONFIG_HOME="+xdg)
	e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil)
	var res struct {
		SessionID string `json:"sessionId"`
	}
	e.call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}}, &res)
	e.call("session/set_mode", map[string]any{"sessionId": res.SessionID, "modeId": "ask"}, nil)
	asked := 0
	e.setHandler(func(m rpcMsg) (any, error) {
		if m.Method != "session/request_permission" {
			return nil, nil
		}
		asked++
		if !strings.Contains(string(m.Params), "allow_always_project") {
			t.Errorf("no project option: %s", m.Params)
		}
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_always_project"}}, nil
	})
	e.prompt(res.SessionID, "make it")
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err != nil || asked != 1 {
		t.Fatalf("asked %d times; made.txt: %v", asked, err)
	}
	os.Remove(filepath.Join(dir, "made.txt"))
	e.call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}}, &res)
	e.call("session/set_mode", map[string]any{"sessionId": res.SessionID, "modeId": "ask"}, nil)
	e.prompt(res.SessionID, "make it again")
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err != nil || asked != 1 {
		t.Errorf("the project rule did not apply in a new session: asked %d times; made.txt: %v", asked, err)
	}
}
