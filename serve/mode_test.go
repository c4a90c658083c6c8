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
	id := r.newSession()
	ev := r.events(id, "")
	defer ev.close()
	r.must(409, "POST", "/api/sessions/"+id+"/plan/accept", nil, nil)
	if code, body := r.call("POST", "/api/sessions/"+id+"/mode", `{"mode":"careful"}`, nil); code != 400 || !strings.Contains(body, "ask, default, plan, yes") {
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
