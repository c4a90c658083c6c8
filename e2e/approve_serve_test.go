package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/tools/sandbox"
)

// Allow on the server (what the page's Allow button posts) deletes the
// real folder outside the workspace, with no second question; Deny keeps
// it. The question says what allowing grants.
func TestServeApprovalDoesWhatItSays(t *testing.T) {
	if !sandbox.For(t.TempDir()).Contained() {
		t.Skip("this machine cannot contain commands")
	}
	for _, tc := range []struct {
		target   approvalTarget
		decision string
	}{
		{approvalTargets[0], "allow"}, {approvalTargets[0], "deny"},
		{approvalTargets[2], "allow"}, {approvalTargets[2], "deny"},
	} {
		t.Run(tc.target.name+"/"+tc.decision, func(t *testing.T) {
			target := tc.target.make(t)
			srv := deleteScript(t, target)
			s := startServe(t, t.TempDir(), srv, nil, "--addr", "127.0.0.1:0")
			var created struct{ ID string }
			s.do(t, "POST", "/api/sessions", `{}`, &created)
			approvals := s.events(t, created.ID, "approval")
			s.do(t, "POST", "/api/sessions/"+created.ID+"/messages", `{"text":"clean the build"}`, nil)
			a := s.next(t, approvals, "approval")
			reason, _ := a["reason"].(string)
			if !strings.Contains(reason, "allowing makes ") || !strings.Contains(reason, "writable for this command") {
				t.Errorf("the question does not say what allowing grants: %q", reason)
			}
			id, _ := a["request_id"].(string)
			if code := s.do(t, "POST", "/api/sessions/"+created.ID+"/approvals/"+id, `{"decision":"`+tc.decision+`"}`, nil); code != 200 {
				t.Fatalf("decision: %d", code)
			}
			srv.WaitRequests(2, 60*time.Second)
			select {
			case again := <-approvals:
				t.Errorf("asked a second time: %v", again)
			case <-time.After(500 * time.Millisecond):
			}
			_, err := os.Stat(filepath.Join(target, "out.o"))
			if gone := err != nil; gone != (tc.decision == "allow") {
				t.Errorf("%s gone: %v after %s\nmodel saw:\n%s", target, gone, tc.decision, lastMessage(srv))
			}
		})
	}
}
