package acp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
	"github.com/aci-dev/aci/internal/testutil"
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
			openBash,
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
	if caps["loadSession"] != true || pc["embeddedContext"] != true || pc["image"] != true {
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
		// The calls as their windows describe them, the same words on every front end.
		{"read", "open calc.go"}, {"edit", "edit calc.go"}, {"execute", "open a shell"}, {"execute", "run grep -c 'a + b' calc.go && echo checked-ok"},
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
			// A running command's output comes in more in_progress updates.
			if s, ok := u["status"].(string); ok && (len(statuses) == 0 || statuses[len(statuses)-1] != s) {
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
		{"session/new", map[string]any{"cwd": filepath.Join(dir, "no-such-folder"), "mcpServers": []any{}}, -32602},
		{"session/new", map[string]any{"cwd": dir, "mcpServers": []any{map[string]any{"type": "sse", "name": "old", "url": "http://127.0.0.1:1/sse", "headers": []any{}}}}, -32602},
		{"session/load", map[string]any{"sessionId": "20990101-000000-deadbeef", "cwd": dir, "mcpServers": []any{}}, -32602},
	}
	for _, c := range cases {
		m := e.wait(e.send(c.method, c.params))
		if m.Error == nil || m.Error.Code != c.code {
			t.Errorf("%s %v: %+v, want error %d", c.method, c.params, m.Error, c.code)
		}
	}
	// A prompt over 256 KiB of text, as aci serve's message limit.
	big := strings.Repeat("x", 200<<10)
	m := e.wait(e.send("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{
		map[string]any{"type": "text", "text": big}, map[string]any{"type": "text", "text": big}}}))
	if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, "limit of 256 KiB") {
		t.Errorf("a 400 KiB prompt: %+v", m.Error)
	}
	if got := e.prompt(sid, "are you there?"); got != "end_turn" {
		t.Fatalf("after the bad messages: stopReason %q", got)
	}
	if text := chunkText(e.allUpdates(), "agent_message_chunk"); !strings.Contains(text, "still here") {
		t.Errorf("text = %q", text)
	}
}

// session/cancel in the middle of a command ends it, its process group
// with it, and the prompt answers cancelled.
func TestACPCancelMidCommand(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			openBash,
			call("bash_1", "run", map[string]any{"command": "sleep 60.81 & echo $! > child.pid; echo $$ > shell.pid; wait", "timeout_s": 120}),
		)},
		fakeai.Reply{Content: "never asked"},
	)
	e := startACP(t, dir, srv)
	e.initialize(false, false)
	sid := e.newSession(dir)
	ch := e.send("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "wait a minute"}}})
	testutil.WaitPIDs(t, filepath.Join(dir, "child.pid"), filepath.Join(dir, "shell.pid"))
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	m := e.wait(ch)
	var res struct {
		StopReason string `json:"stopReason"`
	}
	json.Unmarshal(m.Result, &res)
	if m.Error != nil || res.StopReason != "cancelled" {
		t.Fatalf("prompt answered %+v %s", m.Error, m.Result)
	}
	// The pids the command wrote are its pid namespace's when it runs
	// contained: the processes are found by their command line.
	if left := testutil.Outlived(5*time.Second, "sleep 60.81"); len(left) > 0 {
		t.Errorf("processes %v outlived the cancel", left)
	}
	order, byID := toolCalls(e.allUpdates())
	if st := last(byID[order[len(order)-1]], "status"); st != "failed" {
		t.Errorf("the cancelled command's status = %v", st)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model requests after the cancel, want none", n-1)
	}
}

// A dangerous command becomes a permission request; allowing runs it,
// denying does not, and the model is told.
func TestACPPermission(t *testing.T) {
	for _, tc := range []struct {
		option string
		runs   bool
	}{{"allow_once", true}, {"reject_once", false}, {"reject_always", false}} {
		t.Run(tc.option, func(t *testing.T) {
			dir := t.TempDir()
			home, sentinel := preciousHome(t)
			// uncontained: the test's home lies under /tmp, which
			// contained commands see as their session's own.
			srv := deletePrecious(t, true)
			e := startACP(t, dir, srv, "HOME="+home)
			reqs, sid := promptAnswering(t, e, dir, tc.option)
			var p struct {
				SessionID string `json:"sessionId"`
				ToolCall  struct {
					ToolCallID string `json:"toolCallId"`
					Title      string `json:"title"`
					Kind       string `json:"kind"`
				} `json:"toolCall"`
				Options []struct {
					OptionID, Name, Kind string
				} `json:"options"`
			}
			json.Unmarshal(reqs[0].Params, &p)
			var optKinds []string
			for _, o := range p.Options {
				optKinds = append(optKinds, o.Kind)
			}
			if p.SessionID != sid || p.ToolCall.ToolCallID != "call_1_2" || p.ToolCall.Title != "rm -rf ~/precious" || p.ToolCall.Kind != "execute" ||
				strings.Join(optKinds, ",") != "allow_once,allow_always,allow_always,reject_once,reject_always" {
				t.Errorf("permission request = %s", reqs[0].Params)
			}
			_, err := os.Stat(sentinel)
			if ran := err != nil; ran != tc.runs {
				t.Errorf("command ran: %v, want %v", ran, tc.runs)
			}
			msgs := srv.Requests()[1].Messages
			got := msgs[len(msgs)-1].Content
			if tc.runs == strings.Contains(got, `status="denied"`) {
				t.Errorf("the model was told:\n%s", got)
			}
			_, byID := toolCalls(e.allUpdates())
			want := "completed"
			if !tc.runs {
				want = "failed"
			}
			if st := last(byID["call_1_2"], "status"); st != want {
				t.Errorf("tool call status %v, want %s", st, want)
			}
		})
	}
}

// A question still waiting when the prompt is cancelled is withdrawn
// ($/cancel_request) and the prompt answers cancelled.
func TestACPCancelWhileAsking(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			openBash,
			call("bash_1", "run", map[string]any{"command": "rm -rf ~/precious"}),
		)},
	)
	e := startACP(t, dir, srv, "HOME="+home)
	e.initialize(false, false)
	sid := e.newSession(dir)
	ch := e.send("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "clean up"}}})
	e.until("asked for permission", func() bool { return len(e.requests) == 1 })
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	m := e.wait(ch)
	if m.Error != nil || !strings.Contains(string(m.Result), `"cancelled"`) {
		t.Fatalf("prompt answered %+v %s", m.Error, m.Result)
	}
	e.until("withdrew the question", func() bool { return len(e.cancelled) == 1 && e.cancelled[0] == string(e.requests[0].ID) })
}

// A session made in pipe mode (aci -p, in plan mode) loads: its
// conversation is replayed as updates, the question as the person typed it
// (not plan mode's note), each answer as one chunk however it was
// streamed, each call titled as it was live (its stored tool_call), and the
// next prompt continues it.
func TestACPLoadPipeSession(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk\n"), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Reading.\n" + fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": "notes.txt"}))},
		fakeai.Reply{Content: "The notes say: remember the milk."},
		fakeai.Reply{Content: "You asked about the notes."},
	)
	env := testutil.ChildEnv(home, srv.URL, testKey)
	pipe := testbin.Command(t, dir, env, "--permission-mode", "plan", "-p", "what do the notes say?")
	if out, err := pipe.CombinedOutput(); err != nil {
		t.Fatalf("aci -p: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(home, "state", "aci", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts: %v", files)
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")

	e := startCmd(t, testbin.Command(t, dir, env, "acp"))
	e.initialize(false, false)
	var res map[string]any
	e.call("session/load", map[string]any{"sessionId": id, "cwd": dir, "mcpServers": []any{}}, &res)
	ups := e.allUpdates()
	if q := chunkText(ups, "user_message_chunk"); q != "what do the notes say?" {
		t.Errorf("replayed question %q", q)
	}
	if a := chunkText(ups, "agent_message_chunk"); !strings.Contains(a, "Reading.") || !strings.Contains(a, "remember the milk") {
		t.Errorf("replayed answer %q", a)
	}
	if n := len(kinds(ups, "agent_message_chunk")); n != 2 {
		t.Errorf("the two replies' words replayed in %d chunks, want one each", n)
	}
	order, byID := toolCalls(ups)
	if len(order) != 1 || last(byID[order[0]], "title") != "open notes.txt" || last(byID[order[0]], "status") != "completed" {
		t.Errorf("replayed calls: %v", byID)
	}
	if got := e.prompt(id, "what did I ask?"); got != "end_turn" {
		t.Fatalf("stopReason %q", got)
	}
	reqs := srv.Requests()
	all := ""
	for _, m := range reqs[len(reqs)-1].Messages {
		all += m.Content
	}
	if !strings.Contains(all, "what do the notes say?") || !strings.Contains(all, "remember the milk") {
		t.Errorf("the loaded session's history is not in the request")
	}
}

// With the editor's fs methods, file windows show its unsaved buffer and
// edits go into it: the disk is not touched.
func TestACPEditorBuffers(t *testing.T) {
	dir := t.TempDir()
	calc := filepath.Join(dir, "calc.go")
	os.WriteFile(calc, []byte("package calc\n// saved on disk\n"), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("file_1", "edit", map[string]any{"old_text": "unsaved-buffer-line", "new_text": "edited-by-aci"}))},
		fakeai.Reply{Content: "edited"},
	)
	e := startACP(t, dir, srv)
	var mu sync.Mutex
	buffer := "package calc\n// unsaved-buffer-line\n"
	var writes []string
	e.setHandler(func(m rpcMsg) (any, error) {
		var p struct{ SessionID, Path, Content string }
		json.Unmarshal(m.Params, &p)
		mu.Lock()
		defer mu.Unlock()
		switch m.Method {
		case "fs/read_text_file":
			if p.Path == calc {
				return map[string]any{"content": buffer}, nil
			}
			b, err := os.ReadFile(p.Path)
			if err != nil {
				return nil, err
			}
			return map[string]any{"content": string(b)}, nil
		case "fs/write_text_file":
			writes = append(writes, p.Path+"\n"+p.Content)
			if p.Path == calc {
				buffer = p.Content
			}
			return map[string]any{}, nil
		}
		return nil, nil
	})
	e.initialize(true, true)
	sid := e.newSession(dir)
	// An @-mention (resource_link) opens the file; an embedded resource
	// is context in the question.
	var res struct {
		StopReason string `json:"stopReason"`
	}
	e.call("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{
		map[string]any{"type": "text", "text": "fix the comment in "},
		map[string]any{"type": "resource_link", "uri": "file://" + calc, "name": "calc.go"},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file://" + filepath.Join(dir, "spec.md"), "text": "comments say edited-by-aci"}},
	}}, &res)
	if res.StopReason != "end_turn" {
		t.Fatalf("stopReason %q", res.StopReason)
	}
	first := srv.Requests()[0]
	all := ""
	for _, m := range first.Messages {
		all += m.Content
	}
	if !strings.Contains(all, "unsaved-buffer-line") || strings.Contains(all, "saved on disk") {
		t.Errorf("the model did not see the unsaved buffer:\n%s", all)
	}
	if !strings.Contains(first.LastUser(), "comments say edited-by-aci") || !strings.Contains(first.LastUser(), "Attached: calc.go") {
		t.Errorf("question = %q", first.LastUser())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(writes) != 1 || writes[0] != calc+"\npackage calc\n// edited-by-aci\n" {
		t.Errorf("writes through the editor: %q", writes)
	}
	if b, _ := os.ReadFile(calc); string(b) != "package calc\n// saved on disk\n" {
		t.Errorf("disk = %q", b)
	}
}

// The editor going away (stdin closed) mid-command ends aci and the
// command's processes with it.
func TestACPEditorQuitsMidCommand(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			openBash,
			call("bash_1", "run", map[string]any{"command": "sleep 60.82 & echo $! > child.pid; wait", "timeout_s": 120}),
		)},
	)
	e := startACP(t, dir, srv)
	e.initialize(false, false)
	sid := e.newSession(dir)
	e.send("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "wait"}}})
	testutil.WaitPIDs(t, filepath.Join(dir, "child.pid"))
	e.stdin.Close()
	select {
	case <-e.done:
	case <-time.After(30 * time.Second):
		t.Fatal("aci acp did not end when the editor went away")
	}
	if left := testutil.Outlived(5*time.Second, "sleep 60.82"); len(left) > 0 {
		t.Errorf("the command's processes %v outlived aci", left)
	}
}
