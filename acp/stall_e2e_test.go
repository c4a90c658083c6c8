package acp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// An editor that stops reading aci's stdout for 10 s while a command
// prints megabytes does not hold up the turn: the next model requests go
// out meanwhile. Once it reads again it gets every call, its result and
// the answer.
func TestACPStalledEditorDoesNotStallTheTurn(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Printing.\n" + fakeai.ToolCall(
			openBash,
			call("bash_1", "run", map[string]any{"command": "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo printed-all"}),
		)},
		fakeai.Reply{Content: fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "echo second-run"}))},
		fakeai.Reply{Content: "All done."},
	)
	e := startACP(t, dir, srv)
	e.initialize(false, false)
	sid := e.newSession(dir)

	const stall = 10 * time.Second
	e.gate.set(true)
	start := time.Now()
	ch := e.send("session/prompt", map[string]any{"sessionId": sid, "prompt": []map[string]any{{"type": "text", "text": "print a lot"}}})
	srv.WaitRequests(3, stall-time.Second)
	took := time.Since(start)
	t.Logf("the turn's three model requests went out %v after the prompt, the editor reading nothing", took.Round(time.Millisecond))
	time.Sleep(stall - took)
	e.gate.set(false)

	m := e.wait(ch)
	if m.Error != nil || !strings.Contains(string(m.Result), `"end_turn"`) {
		t.Fatalf("prompt answered %s %+v", m.Result, m.Error)
	}
	ups := e.allUpdates()
	if a := chunkText(ups, "agent_message_chunk"); !strings.Contains(a, "Printing.") || !strings.Contains(a, "All done.") {
		t.Errorf("message chunks %q", a)
	}
	order, byID := toolCalls(ups)
	if len(order) != 3 {
		t.Fatalf("%d tool calls, want 3: %v", len(order), order)
	}
	for _, id := range order {
		if st := last(byID[id], "status"); st != "completed" {
			t.Errorf("%s ended %v", id, st)
		}
	}
	var live int
	for _, u := range byID[order[1]] {
		if u["status"] == "in_progress" && u["content"] != nil {
			live++
		}
	}
	out := fmtJSON(last(byID[order[1]], "content"))
	if !strings.Contains(out, "printed-all") {
		t.Errorf("the big command's last update lacks its output's end: %.300s", out)
	}
	if !strings.Contains(fmtJSON(last(byID[order[2]], "content")), "second-run") {
		t.Errorf("the second command's output is missing")
	}
	t.Logf("the big command's output came in %d pieces", live)
}

func fmtJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
