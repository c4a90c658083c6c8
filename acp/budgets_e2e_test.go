package acp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// ACP keeps the person's settings limits: the second prompt past
// max_turns 1 stops with max_turn_requests, unsent.
func TestACPKeepsSettingsBudgets(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	p := filepath.Join(home, ".config", "aci", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(`{"limits": {"max_turns": 1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := fakeai.New(t, fakeai.Reply{Content: "One answer."})
	e := startACP(t, dir, srv, "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"))
	e.initialize(false, false)
	sid := e.newSession(dir)
	if got := e.prompt(sid, "first"); got != "end_turn" {
		t.Fatalf("first prompt: stopReason = %q", got)
	}
	if got := e.prompt(sid, "second"); got != "max_turn_requests" {
		t.Fatalf("second prompt: stopReason = %q", got)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
