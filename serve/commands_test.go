package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// TestCommandsListedAndRun: GET /api/commands lists the workspace's prompt
// commands, a broken file with its problem; a message naming one runs its
// prompt, and one that cannot run is a 400 that starts nothing.
func TestCommandsListedAndRun(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	r := newRig(t, []fakeai.Reply{{Content: "done", Delay: time.Second}})
	os.MkdirAll(filepath.Join(r.dir, ".aci/commands/git"), 0o755)
	os.WriteFile(filepath.Join(r.dir, ".aci/commands/git/commit.md"), []byte("---\ndescription: commit it\nargument-hint: [msg]\n---\nCommit: $ARGUMENTS"), 0o644)
	os.WriteFile(filepath.Join(r.dir, ".aci/commands/bad.md"), []byte("uses $ARGS"), 0o644)
	var got struct {
		Commands []commandInfo
		Notes    []string
	}
	r.must(200, "GET", "/api/commands", nil, &got)
	byName := map[string]commandInfo{}
	for _, c := range got.Commands {
		byName[c.Name] = c
	}
	if c := byName["git:commit"]; c.Description != "commit it" || c.ArgumentHint != "[msg]" || c.Scope != "project" {
		t.Errorf("git:commit = %+v", c)
	}
	if byName["init"].Scope != "built-in" || byName["review"].Scope != "built-in" || !strings.Contains(byName["bad"].Problem, "$ARGS") {
		t.Errorf("commands = %+v", got.Commands)
	}
	id := r.newSession()
	code, body := r.call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "/bad"}, nil)
	if code != 400 || !strings.Contains(body, "cannot run") {
		t.Errorf("/bad: %d %s", code, body)
	}
	r.ask(id, "/git:commit the parser")
	reqs := r.ai.WaitRequests(1, 10*time.Second)
	if len(reqs) != 1 || !strings.HasPrefix(reqs[0].LastUser(), "Commit: the parser") {
		t.Errorf("requests: %+v", reqs)
	}
	// While that turn runs, a command cannot join it as words do.
	code, body = r.call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "/review"}, nil)
	if code != 409 || !strings.Contains(body, "turn of its own") {
		t.Errorf("/review during a turn: %d %s", code, body)
	}
}
