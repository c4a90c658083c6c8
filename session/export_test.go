package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/transcript"
)

func exportFixture() agent.Session {
	ev := func(typ string, data map[string]any) transcript.StoredEvent {
		data["type"] = typ
		b, _ := json.Marshal(data)
		return transcript.StoredEvent{Type: typ, Data: b}
	}
	cost := 0.0125
	return agent.Session{ID: "s1", Model: "m", Events: []transcript.StoredEvent{
		ev("turn", map[string]any{"turn": 1, "question": "show <b>me</b>"}),
		ev("text", map[string]any{"text": "the key is SECRET-"}),
		ev("text", map[string]any{"text": "VALUE-123456, look"}),
		ev("tool_call", map[string]any{"call_id": "c1", "window_id": "bash_1", "action_id": "run", "title": "run cat x"}),
		ev("approval", map[string]any{"request_id": "r1", "window_id": "bash_1", "action_id": "run", "title": "run cat x", "reason": "reads a file"}),
		ev("decision", map[string]any{"request_id": "r1", "decision": "allow", "by": "person"}),
		ev("tool_result", map[string]any{"call_id": "c1", "status": "ok", "output": "```\nfenced ```` inside\n", "exit_code": 0}),
		ev("text", map[string]any{"text": "<script>alert(1)</script>"}),
		ev("result", map[string]any{"is_error": false, "result": "<script>alert(1)</script>", "total_cost_usd": cost, "usage": map[string]any{"prompt_tokens": 10}}),
	}}
}

// The document: secrets removed even when split across streamed pieces;
// the answer said once; an output holding fences cannot close its block;
// the HTML escapes every text and holds no script; decisions name what
// was asked.
func TestExport(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "SECRET-VALUE-123456", "[REDACTED]") }
	md, err := Export(exportFixture(), "md", redact)
	if err != nil {
		t.Fatal(err)
	}
	m := string(md)
	for _, want := range []string{"## 1. show <b>me</b>", "the key is [REDACTED], look", "**Decision:** allow by person: run cat x (reads a file)", "`````\n```\nfenced ```` inside\n`````", "$0.0125"} {
		if !strings.Contains(m, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, m)
		}
	}
	if strings.Contains(m, "SECRET") || strings.Count(m, "<script>alert(1)</script>") != 1 {
		t.Errorf("secret kept or answer repeated:\n%s", m)
	}
	h, _ := Export(exportFixture(), "html", redact)
	page := string(h)
	if strings.Contains(page, "<script") || strings.Contains(page, "<b>me") || strings.Contains(page, "SECRET") {
		t.Errorf("the HTML holds markup from the session or a secret:\n%s", page)
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(page, "default-src 'none'") {
		t.Errorf("the HTML:\n%s", page)
	}
	if _, err := Export(exportFixture(), "pdf", nil); err == nil {
		t.Error("an unknown format was written")
	}
}
