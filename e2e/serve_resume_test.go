package e2e

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// Sessions the server makes are the workspace's sessions: --sessions lists
// a server-made branch under its parent, and --resume continues it.
func TestServeSessionsResumeFromTheCLI(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	shared := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	ai := fakeai.New(t,
		fakeai.Reply{Content: "first answer"},
		fakeai.Reply{Content: "second answer"},
		fakeai.Reply{Content: "resumed answer"},
	)
	s := startServe(t, dir, ai, shared, "--addr", "127.0.0.1:0")
	var created struct{ ID string }
	if code := s.do(t, "POST", "/api/sessions", `{}`, &created); code != 201 {
		t.Fatalf("create: %d", code)
	}
	for i, q := range []string{"question one", "question two"} {
		if code := s.do(t, "POST", "/api/sessions/"+created.ID+"/messages", `{"text":"`+q+`"}`, nil); code != 202 {
			t.Fatalf("message %d: %d", i+1, code)
		}
		ai.WaitRequests(i+1, 30*time.Second)
		deadline := time.Now().Add(30 * time.Second)
		for {
			var info struct {
				State string
				Turns []struct{ Answer string }
			}
			s.do(t, "GET", "/api/sessions/"+created.ID, "", &info)
			if info.State == "idle" && len(info.Turns) == i+1 && info.Turns[i].Answer != "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("turn %d did not end: %+v", i+1, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	var branch struct{ ID, Parent string }
	if code := s.do(t, "POST", "/api/sessions/"+created.ID+"/fork", `{"turn":1}`, &branch); code != 201 || branch.Parent != created.ID {
		t.Fatalf("fork: %d %+v", code, branch)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(t); code != 0 {
		t.Fatalf("serve exit %d", code)
	}

	r := aci(t, dir, ai, "", shared, "--sessions")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], created.ID) || !strings.HasPrefix(lines[1], "└ "+branch.ID) {
		t.Fatalf("--sessions: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = aci(t, dir, ai, "", shared, "--resume", branch.ID, "-p", "question three")
	if r.code != 0 || !strings.Contains(r.stdout, "resumed answer") {
		t.Fatalf("--resume of the branch: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := ai.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "question one") || strings.Contains(last, "question two") || !strings.Contains(last, "question three") {
		t.Errorf("the resumed branch sent %s", last)
	}
}
