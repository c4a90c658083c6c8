package acp_test

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/acp"
	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/mcptest"
	"github.com/aci-dev/aci/session"
)

// startInProcess runs acp.Run in this process over pipes, so the race
// detector sees the server's own goroutines (the binary's tests cannot).
func startInProcess(t *testing.T, srv *fakeai.Server, timeout time.Duration) *editor {
	t.Helper()
	f := session.NewFactory(session.Config{
		Client:          session.ClientConfig{BaseURL: srv.URL, APIKey: testKey, Model: "test-model", Stream: true},
		Agent:           session.AgentConfig{BasePrompt: "You are a test.", MaxSteps: 10},
		SessionsDir:     t.TempDir(),
		ApprovalTimeout: timeout,
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e := &editor{t: t, done: make(chan struct{}), waiting: map[string]chan rpcMsg{}, changed: make(chan struct{}), stdin: inW}
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() {
		ended <- acp.Run(ctx, inR, outW, acp.Config{Factory: f, Version: "test", Log: log.New(io.Discard, "", 0)})
		outW.Close()
	}()
	go e.read(outR)
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-ended:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("Run did not end when its input closed")
		}
		cancel()
		<-e.done
	})
	return e
}

// The whole path in one process, under -race: a streamed reply, a file
// edit, a command that asks (allowed once), then a question the editor
// never answers, denied at the approval timeout and withdrawn.
func TestACPInProcess(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, "junk"), 0o755)
	srv := fakeai.New(t,
		fakeai.Reply{Reasoning: "thinking", Content: "Editing.\n" + fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "file", "target": "a.txt"}),
			call("file_1", "edit", map[string]any{"old_text": "one", "new_text": "two"}),
			openBash,
			// uncontained: the test's home lies under /tmp, which contained
			// commands see as their session's own.
			call("bash_1", "run", map[string]any{"command": "rm -rf ~/junk && echo gone", "uncontained": true}),
		)},
		fakeai.Reply{Content: "Done."},
		fakeai.Reply{Content: fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "rm -rf ~/other"}))},
		fakeai.Reply{Content: "Denied, so I stop."},
	)
	e := startInProcess(t, srv, 300*time.Millisecond)
	asked := 0
	e.setHandler(func(m rpcMsg) (any, error) {
		if m.Method != "session/request_permission" {
			return nil, nil
		}
		asked++
		if asked > 1 {
			return nil, nil // never answered: the timeout denies it
		}
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}, nil
	})
	e.initialize(false, false)
	sid := e.newSession(dir)
	if got := e.prompt(sid, "edit and clean"); got != "end_turn" {
		t.Fatalf("stopReason %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "two\n" {
		t.Errorf("a.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, "junk")); err == nil {
		t.Errorf("the allowed command did not run")
	}
	if got := e.prompt(sid, "clean more"); got != "end_turn" {
		t.Fatalf("second prompt: stopReason %q", got)
	}
	msgs := srv.Requests()[3].Messages
	if last := msgs[len(msgs)-1].Content; !strings.Contains(last, `status="denied"`) || !strings.Contains(last, "no answer") {
		t.Errorf("the model was told:\n%s", last)
	}
	e.until("withdrew the unanswered question", func() bool { return len(e.cancelled) == 1 })
	ups := e.allUpdates()
	if th := chunkText(ups, "agent_thought_chunk"); th != "thinking" {
		t.Errorf("thoughts %q", th)
	}
	raw, _ := json.Marshal(ups)
	if strings.Contains(string(raw), "<tool_call>") {
		t.Errorf("a call showed as text")
	}
}

func TestMain(m *testing.M) {
	mcptest.Main() // serves MCP when re-executed as the test server
	os.Exit(m.Run())
}

// The editor's MCP servers join the configured ones: the model opens the
// one the editor named and calls its tool; the window, which the editor
// cannot show otherwise, comes back as the tool call's content.
func TestACPEditorMCPServer(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "mcp", "target": "tester"}),
			call("mcp_1", "echo", map[string]any{"message": "hello over acp"}),
		)},
		fakeai.Reply{Content: "It echoed."},
	)
	e := startInProcess(t, srv, time.Minute)
	e.initialize(false, false)
	exe, args, env := mcptest.StdioCommand()
	var envList []any
	for k, v := range env {
		envList = append(envList, map[string]any{"name": k, "value": v})
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	e.call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{
		map[string]any{"name": "tester", "command": exe, "args": args, "env": envList},
	}}, &res)
	if got := e.prompt(res.SessionID, "echo something"); got != "end_turn" {
		t.Fatalf("stopReason %q", got)
	}
	order, byID := toolCalls(e.allUpdates())
	if len(order) != 2 {
		t.Fatalf("tool calls %v", order)
	}
	open, _ := json.Marshal(last(byID[order[0]], "content"))
	echo, _ := json.Marshal(last(byID[order[1]], "content"))
	if last(byID[order[0]], "status") != "completed" || !strings.Contains(string(open), "echo") {
		t.Errorf("open: %s", open)
	}
	if last(byID[order[1]], "status") != "completed" || !strings.Contains(string(echo), "echo: hello over acp") || strings.Contains(string(echo), "tools (call") {
		t.Errorf("echo: %s", echo)
	}
	if last(byID[order[1]], "title") != "tester: echo" {
		t.Errorf("title %v", last(byID[order[1]], "title"))
	}
}
