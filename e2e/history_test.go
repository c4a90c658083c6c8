package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A turn run in pipe mode is whole history for the server: GET
// /api/sessions/{id} gives its actions with their params, status and
// output, read from the transcript.
func TestServeShowsAPipeTurnWithItsActions(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	shared := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	ai := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}})},
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "echo pipe-history-output"}})},
		fakeai.Reply{Content: "piped answer"},
	)
	r := aci(t, dir, ai, "", shared, "-p", "run the echo", "--output-format", "json")
	var res struct {
		SessionID string `json:"session_id"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || res.SessionID == "" {
		t.Fatalf("pipe run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	s := startServe(t, dir, ai, shared, "--addr", "127.0.0.1:0")
	var info struct {
		Turns []struct {
			Question, Answer string
			Actions          []struct {
				CallID   string `json:"call_id"`
				WindowID string `json:"window_id"`
				ActionID string `json:"action_id"`
				Params   map[string]any
				Status   string
				Output   string
			}
			Steers []string
		}
	}
	if code := s.do(t, "GET", "/api/sessions/"+res.SessionID, "", &info); code != 200 {
		t.Fatalf("GET the pipe's session: %d", code)
	}
	if len(info.Turns) != 1 || info.Turns[0].Question != "run the echo" || info.Turns[0].Answer != "piped answer" || len(info.Turns[0].Actions) != 2 {
		t.Fatalf("turns %+v", info.Turns)
	}
	a := info.Turns[0].Actions[1]
	if a.CallID == "" || a.WindowID != "bash_1" || a.ActionID != "run" || a.Status != "ok" || a.Params["command"] != "echo pipe-history-output" ||
		!strings.Contains(a.Output, "pipe-history-output") {
		t.Errorf("the run action %+v", a)
	}
}
