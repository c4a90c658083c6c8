package acp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// toolCalls gathers each tool call's updates by id, in order.
func toolCalls(ups []map[string]any) (order []string, byID map[string][]map[string]any) {
	byID = map[string][]map[string]any{}
	for _, u := range ups {
		k := u["sessionUpdate"]
		if k != "tool_call" && k != "tool_call_update" {
			continue
		}
		id, _ := u["toolCallId"].(string)
		if _, seen := byID[id]; !seen {
			order = append(order, id)
		}
		byID[id] = append(byID[id], u)
	}
	return order, byID
}

// last is the last value of key among a tool call's updates.
func last(list []map[string]any, key string) any {
	var v any
	for _, u := range list {
		if x, ok := u[key]; ok {
			v = x
		}
	}
	return v
}

// One prompt reads a file, edits it and runs a command: the editor sees
// the model's words without the calls, its reasoning, each action as a
// tool call with a kind, a title, locations and a final status, the edit
// as a diff and the command's output.
func TestACPPromptReadEditRun(t *testing.T) {
	dir := t.TempDir()
	calc := filepath.Join(dir, "calc.go")
	os.WriteFile(calc, []byte("package calc\n\nfunc Add(a, b int) int { return a - b }\n"), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Reasoning: "The sign looks wrong.", Content: "Let me look at calc.go.\n" + fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": "calc.go"}))},
		fakeai.Reply{Content: "Fixing the sign.\n" + fakeai.ToolCall(
			call("file_1", "edit", map[string]any{"old_text": "a - b", "new_text": "a + b"}),
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "grep -c 'a + b' calc.go && echo checked-ok"}),
		)},
		fakeai.Reply{Content: "Add now adds."},
	)
	e := startACP(t, dir, srv)
	init := e.initialize(false, false)
	if init["protocolVersion"] != float64(1) {
		t.Errorf("protocolVersion = %v", init["protocolVersion"])
	}
	caps, _ := init["agentCapabilities"].(map[string]any)
	pc, _ := caps["promptCapabilities"].(map[string]any)
	if caps["loadSession"] != true || pc["embeddedContext"] != true {
		t.Errorf("agentCapabilities = %v", caps)
	}
	sid := e.newSession(dir)
	if got := e.prompt(sid, "fix Add"); got != "end_turn" {
		t.Fatalf("stopReason = %q", got)
	}
	if b, _ := os.ReadFile(calc); !strings.Contains(string(b), "a + b") {
		t.Errorf("calc.go = %q", b)
	}
	ups := e.allUpdates()
	text := chunkText(ups, "agent_message_chunk")
	for _, want := range []string{"Let me look at calc.go.", "Fixing the sign.", "Add now adds."} {
		if !strings.Contains(text, want) {
			t.Errorf("message chunks lack %q: %q", want, text)
		}
	}
	if strings.Contains(text, "tool_call") || strings.Contains(text, "window_id") {
		t.Errorf("calls showed as text: %q", text)
	}
	if th := chunkText(ups, "agent_thought_chunk"); !strings.Contains(th, "The sign looks wrong.") {
		t.Errorf("thought chunks = %q", th)
	}
	order, byID := toolCalls(ups)
	if len(order) != 4 {
		t.Fatalf("%d tool calls, want 4: %v", len(order), order)
	}
	want := []struct{ kind, title string }{
		{"read", "Open calc.go"}, {"edit", "Edit calc.go"}, {"execute", "Open a shell"}, {"execute", "grep -c 'a + b' calc.go && echo checked-ok"},
	}
	for i, id := range order {
		list := byID[id]
		if list[0]["sessionUpdate"] != "tool_call" || list[0]["status"] != "pending" {
			t.Errorf("%s starts with %v", id, list[0])
		}
		if last(list, "kind") != want[i].kind || last(list, "title") != want[i].title {
			t.Errorf("%s: kind %v title %v, want %+v", id, last(list, "kind"), last(list, "title"), want[i])
		}
		var statuses []string
		for _, u := range list {
			if s, ok := u["status"].(string); ok {
				statuses = append(statuses, s)
			}
		}
		if strings.Join(statuses, ",") != "pending,in_progress,completed" {
			t.Errorf("%s statuses %v", id, statuses)
		}
	}
	locs, _ := last(byID[order[0]], "locations").([]any)
	if len(locs) != 1 || locs[0].(map[string]any)["path"] != calc {
		t.Errorf("open's locations = %v", locs)
	}
	content, _ := last(byID[order[1]], "content").([]any)
	if len(content) == 0 {
		t.Fatalf("edit has no content")
	}
	diff := content[0].(map[string]any)
	if diff["type"] != "diff" || diff["path"] != calc || !strings.Contains(diff["oldText"].(string), "a - b") || !strings.Contains(diff["newText"].(string), "a + b") {
		t.Errorf("edit content = %v", diff)
	}
	out, _ := json.Marshal(last(byID[order[3]], "content"))
	if !strings.Contains(string(out), "checked-ok") {
		t.Errorf("command content = %s", out)
	}
}

// Malformed JSON-RPC gets the standard errors, and the session goes on.
func TestACPMalformedMessages(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t, fakeai.Reply{Content: "still here"})
	e := startACP(t, dir, srv)
	e.initialize(false, false)
	sid := e.newSession(dir)

	// A parse error has no id to answer: it is answered with id null.
	e.mu.Lock()
	nullCh := make(chan rpcMsg, 1)
	e.waiting["null"] = nullCh
	e.mu.Unlock()
	e.writeLine(`{"jsonrpc":"2.0","id":7,"method":"session/prompt",`)
	if m := e.wait(nullCh); m.Error == nil || m.Error.Code != -32700 {
		t.Errorf("broken JSON: %+v", m)
	}
	cases := []struct {
		method string
		params any
		code   int
	}{
		{"session/fly", map[string]any{}, -32601},
		{"session/prompt", map[string]any{"sessionId": sid, "prompt": "not a list"}, -32602},
		{"session/prompt", map[string]any{"sessionId": "no-such-session", "prompt": []any{map[string]any{"type": "text", "text": "hi"}}}, -32602},
		{"session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "image", "data": "AA==", "mimeType": "image/png"}}}, -32602},
		{"session/new", map[string]any{"cwd": "relative/dir", "mcpServers": []any{}}, -32602},
		{"session/new", nil, -32602},
		{"session/load", map[string]any{"sessionId": "20990101-000000-deadbeef", "cwd": dir, "mcpServers": []any{}}, -32602},
	}
	for _, c := range cases {
		m := e.wait(e.send(c.method, c.params))
		if m.Error == nil || m.Error.Code != c.code {
			t.Errorf("%s %v: %+v, want error %d", c.method, c.params, m.Error, c.code)
		}
	}
	if got := e.prompt(sid, "are you there?"); got != "end_turn" {
		t.Fatalf("after the bad messages: stopReason %q", got)
	}
	if text := chunkText(e.allUpdates(), "agent_message_chunk"); !strings.Contains(text, "still here") {
		t.Errorf("text = %q", text)
	}
}
