package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The server keeps the person's settings limits: a session's third
// question past max_turns 2 gets a result with outcome "limit" and is not
// sent; a session that spends max_budget_usd ends its turn there.
func TestServeKeepsSettingsBudgets(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, ".config", "aci", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"prices": {"test-model": {"input": 1000, "output": 0}}, "limits": {"max_turns": 2, "max_budget_usd": 2.5}}`), 0o600)
	ai := fakeai.New(t)
	busy := false
	ai.Handle(func(req fakeai.Request) fakeai.Reply {
		if strings.Contains(req.LastUser(), "spend") || busy {
			busy = true
			return fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": "x" + string(rune('a'+req.N)) + ".txt"})),
				PromptTokens: 1000, CompletionTokens: 1}
		}
		return fakeai.Reply{Content: "An answer.", PromptTokens: 100, CompletionTokens: 1} // $0.10
	})
	s := startServe(t, t.TempDir(), ai, []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}, "--addr", "127.0.0.1:0")

	var a struct{ ID string }
	s.do(t, "POST", "/api/sessions", `{}`, &a)
	results := s.events(t, a.ID, "result")
	for i, q := range []string{"one", "two"} {
		s.do(t, "POST", "/api/sessions/"+a.ID+"/messages", `{"text":"`+q+`"}`, nil)
		if r := s.next(t, results, "result"); r["outcome"] != "answered" {
			t.Fatalf("turn %d: %v", i+1, r)
		}
	}
	s.do(t, "POST", "/api/sessions/"+a.ID+"/messages", `{"text":"three"}`, nil)
	r := s.next(t, results, "result")
	if r["outcome"] != "limit" || r["limit"] != "turns" || !strings.Contains(r["error"].(string), "2 turns of 2") {
		t.Fatalf("third turn: %v", r)
	}
	if n := len(ai.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}

	var b struct{ ID string }
	s.do(t, "POST", "/api/sessions", `{}`, &b)
	results = s.events(t, b.ID, "result")
	s.do(t, "POST", "/api/sessions/"+b.ID+"/messages", `{"text":"spend it"}`, nil)
	r = s.next(t, results, "result")
	if r["outcome"] != "limit" || r["limit"] != "budget" || !strings.Contains(r["error"].(string), "spent $3.00 of $2.50") || r["total_cost_usd"] != float64(3) {
		t.Fatalf("budget: %v", r)
	}
	if n := len(ai.Requests()); n != 5 {
		t.Errorf("%d requests, want 5 (2, then 3 of $1)", n)
	}
	// The session is kept and idle: its transcript is there.
	var info struct{ State string }
	if code := s.do(t, "GET", "/api/sessions/"+b.ID, "", &info); code != 200 || info.State != "idle" {
		t.Errorf("GET the session: %d %+v", code, info)
	}
}
