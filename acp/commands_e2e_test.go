package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// TestACPAvailableCommands: after session/new the editor gets the
// workspace's commands (available_commands_update), with a file that
// cannot run described as such; a prompt "/name args" runs the command's
// prompt, and a broken one is an invalid-params error.
func TestACPAvailableCommands(t *testing.T) {
	dir, cfg := t.TempDir(), t.TempDir()
	for rel, text := range map[string]string{
		filepath.Join(dir, ".aci/commands/fix-issue.md"):     "---\ndescription: fix an issue\nargument-hint: [number]\n---\nFix issue #$1 please.",
		filepath.Join(dir, ".claude/commands/git/commit.md"): "Commit: $ARGUMENTS",
		filepath.Join(dir, ".aci/commands/broken.md"):        "---\ndescription: x",
		filepath.Join(cfg, "aci/commands/mine.md"):           "---\ndescription: the person's\n---\nMine: $ARGUMENTS",
	} {
		os.MkdirAll(filepath.Dir(rel), 0o755)
		os.WriteFile(rel, []byte(text), 0o644)
	}
	srv := fakeai.New(t, fakeai.Reply{Content: "Fixed."})
	e := startACP(t, dir, srv, "XDG_CONFIG_HOME="+cfg)
	e.initialize(false, false)
	sid := e.newSession(dir)
	var list []any
	e.until("the commands arrive", func() bool {
		for _, u := range e.updates {
			if u["sessionUpdate"] == "available_commands_update" {
				list, _ = u["availableCommands"].([]any)
				return true
			}
		}
		return false
	})
	byName := map[string]map[string]any{}
	for _, c := range list {
		m := c.(map[string]any)
		byName[m["name"].(string)] = m
	}
	for _, name := range []string{"init", "review", "fix-issue", "git:commit", "mine", "broken"} {
		if byName[name] == nil {
			t.Errorf("/%s not offered: %v", name, list)
		}
	}
	if in, _ := byName["fix-issue"]["input"].(map[string]any); in["hint"] != "[number]" || byName["fix-issue"]["description"] != "fix an issue" {
		t.Errorf("fix-issue = %v", byName["fix-issue"])
	}
	if d, _ := byName["broken"]["description"].(string); !strings.HasPrefix(d, "cannot run: front matter") {
		t.Errorf("broken = %v", byName["broken"])
	}

	if stop := e.prompt(sid, "/fix-issue 7"); stop != "end_turn" {
		t.Fatalf("stop reason %q", stop)
	}
	if got := srv.Requests()[0].LastUser(); !strings.HasPrefix(got, "Fix issue #7 please.") {
		t.Errorf("the model got %q", got)
	}
	m := e.wait(e.send("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "/broken"}}}))
	if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, "cannot run") {
		t.Errorf("/broken: %+v", m)
	}
	if n := len(kinds(e.allUpdates(), "available_commands_update")); n != 1 {
		t.Errorf("%d available_commands_update, want 1 (the list did not change)", n)
	}
}
