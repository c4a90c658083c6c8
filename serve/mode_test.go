package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// POST .../mode switches a session to plan mode (a mode event says so);
// the next write is refused; POST .../plan/accept switches back to
// default and a turn carries the plan out. yes is refused to a client of
// a server not started with it; an unknown mode is a 400.
func TestModeAndAcceptPlan(t *testing.T) {
	r := newRig(t, []fakeai.Reply{
		{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "file", "target": "plan.txt"}),
			call("file_1", "write", map[string]any{"content": "too early\n"}),
		)},
		{Content: "Plan:\n1. write plan.txt"},
		{Content: fakeai.ToolCall(call("file_1", "write", map[string]any{"content": "done\n"}))},
		{Content: "carried out"},
	})
	id, ev := r.followedSession()
	defer ev.close()
	r.must(409, "POST", "/api/sessions/"+id+"/plan/accept", nil, nil)
	if code, body := r.call("POST", "/api/sessions/"+id+"/mode", `{"mode":"careful"}`, nil); code != 400 || !strings.Contains(body, "default (acceptEdits), plan, yes") {
		t.Errorf("unknown mode: %d %s", code, body)
	}
	if code, _ := r.call("POST", "/api/sessions/"+id+"/mode", `{"mode":"yes"}`, nil); code != 403 {
		t.Errorf("mode yes from a client: %d, want 403", code)
	}
	var got struct{ Mode string }
	r.must(200, "POST", "/api/sessions/"+id+"/mode", `{"mode":"plan"}`, &got)
	if got.Mode != "plan" {
		t.Fatalf("mode %q", got.Mode)
	}
	ev.until(func(e event) bool { return e.Type == "mode" && e.Data["mode"] == "plan" })
	r.ask(id, "make plan.txt")
	ev.until(func(e event) bool { return e.Type == "mode" && e.Data["plan_ready"] == true })
	ev.until(idle)
	var info struct {
		Mode      string
		PlanReady bool `json:"plan_ready"`
	}
	r.must(200, "GET", "/api/sessions/"+id, nil, &info)
	if info.Mode != "plan" || !info.PlanReady {
		t.Errorf("session info %+v", info)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "plan.txt")); err == nil {
		t.Fatal("plan mode wrote the file")
	}
	r.must(202, "POST", "/api/sessions/"+id+"/plan/accept", nil, nil)
	ev.until(func(e event) bool { return e.Type == "mode" && e.Data["mode"] == "default" })
	ev.until(func(e event) bool { return e.Type == "result" })
	if b, err := os.ReadFile(filepath.Join(r.dir, "plan.txt")); err != nil || string(b) != "done\n" {
		t.Errorf("after accepting: %q, %v", b, err)
	}
}

// GET /api/trust names what the folder would run; POST trusts it, and a
// session made afterwards runs the project's hook.
func TestTrustFolderOverAPI(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	r := newRig(t, []fakeai.Reply{{Content: "hi"}, {Content: "hi again"}})
	marker := filepath.Join(r.dir, "hook-ran")
	os.MkdirAll(filepath.Join(r.dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(r.dir, ".claude", "settings.json"),
		[]byte(`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch `+marker+`"}]}]}}`), 0o644)
	var info struct {
		Lines   []string
		Trusted bool
	}
	r.must(200, "GET", "/api/trust", nil, &info)
	if info.Trusted || len(info.Lines) != 1 || !strings.Contains(info.Lines[0], "touch "+marker) {
		t.Fatalf("trust info %+v", info)
	}
	id, ev := r.followedSession()
	r.ask(id, "hello")
	ev.until(idle)
	ev.close()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted project hook ran")
	}
	r.must(400, "POST", "/api/trust", `{"trust": false}`, nil)
	r.must(200, "POST", "/api/trust", `{"trust": true}`, nil)
	r.must(200, "GET", "/api/trust", nil, &info)
	if !info.Trusted {
		t.Error("not trusted after POST")
	}
	id = r.newSession()
	ev = r.events(id, "")
	defer ev.close()
	r.ask(id, "hello")
	ev.until(idle)
	if _, err := os.Stat(marker); err != nil {
		t.Error("the trusted project hook did not run in a new session")
	}
}

// On a server started with --yes, sessions answer their own questions in
// mode yes; switched to default, the next question goes to the clients.
func TestYesServerModeSwitch(t *testing.T) {
	outside := t.TempDir()
	r := newRig(t, []fakeai.Reply{
		{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "file", "target": filepath.Join(outside, "a.txt")}),
			call("file_1", "write", map[string]any{"content": "yes\n"}),
		)},
		{Content: "wrote"},
		{Content: fakeai.ToolCall(call("file_1", "write", map[string]any{"content": "again\n"}))},
		{Content: "asked"},
	}, func(_ *sessionConfig, c *Config) { c.Mode = "yes" })
	id, ev := r.followedSession()
	defer ev.close()
	r.ask(id, "write it")
	for _, e := range ev.until(idle) {
		if e.Type == "approval" {
			t.Fatalf("a question reached the clients in mode yes: %v", e.Data)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "a.txt")); string(b) != "yes\n" {
		t.Fatalf("mode yes did not write: %q", b)
	}
	r.must(200, "POST", "/api/sessions/"+id+"/mode", `{"mode":"default"}`, nil)
	r.ask(id, "again")
	ap := ev.until(is("approval"))
	reqID, _ := ap[len(ap)-1].Data["request_id"].(string)
	r.must(200, "POST", "/api/sessions/"+id+"/approvals/"+reqID, `{"decision":"deny"}`, nil)
	ev.until(idle)
	if b, _ := os.ReadFile(filepath.Join(outside, "a.txt")); string(b) != "yes\n" {
		t.Errorf("the denied write happened: %q", b)
	}
}
