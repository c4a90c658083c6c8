package windows

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/sandbox"
)

// Running a command outside the sandbox is asked, with its own reason, even
// for a command the guard finds harmless; a denial runs nothing.
func TestBashUncontainedIsAsked(t *testing.T) {
	var mu sync.Mutex
	var asked []ApprovalRequest
	allow := false
	ap := ApproverFunc(func(_ context.Context, req ApprovalRequest) Decision {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req)
		return Decision{Allow: allow}
	})
	m, dir := newAppsManager(t, ap)
	if !sandbox.For(dir).Contained() {
		t.Skip("this machine cannot contain commands; uncontained means nothing here")
	}
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	if r := do(t, m, "bash_1", "run", `{"command":"echo inside"}`); r.Status != protocol.StatusOK || len(asked) != 0 {
		t.Fatalf("contained run: %+v, asked %v", r, asked)
	}
	r := do(t, m, "bash_1", "run", `{"command":"touch ran","uncontained":true}`)
	if r.Status != protocol.StatusDenied || len(asked) != 1 || !strings.HasPrefix(asked[0].Reason, "run outside the sandbox") || asked[0].Subject != "touch ran" {
		t.Fatalf("uncontained run: %+v, asked %+v", r, asked)
	}
	if r := do(t, m, "bash_1", "run", `{"command":"ls ran"}`); !strings.Contains(r.Output, "No such file") {
		t.Errorf("the denied command ran: %+v", r)
	}
	r = do(t, m, "bash_1", "start", `{"command":"true","uncontained":true}`)
	if r.Status != protocol.StatusDenied || len(asked) != 2 {
		t.Fatalf("uncontained start: %+v", r)
	}
	allow = true
	if r := do(t, m, "bash_1", "run", `{"command":"echo outside","uncontained":true}`); r.Status != protocol.StatusOK || r.Output != "outside" {
		t.Errorf("approved uncontained run: %+v", r)
	}
}

// With bwrap unavailable (forced here), bash windows fall back to Landlock
// and stay contained: the workspace is writable, the rest is not, and the
// result says why a write failed, even when the guard's question is
// answered yes (as with --yes) for a path it could not name. A path it
// named and the person allowed is granted, as under bwrap.
func TestBashWindowLandlockFallback(t *testing.T) {
	sandbox.SetForce(sandbox.Landlock)
	t.Cleanup(func() { sandbox.SetForce("") })
	m, dir := newAppsManager(t, ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{Allow: true} }))
	sb := sandbox.For(dir)
	if sb.Kind() != sandbox.Landlock {
		t.Skipf("Landlock unavailable on this machine, not tested (kind %s)", sb.Kind())
	}
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	if r := do(t, m, "bash_1", "run", `{"command":"mkdir -p a && echo in > a/f && cd a && cat f"}`); r.Status != protocol.StatusOK || !strings.Contains(r.Text, "exit 0") {
		t.Fatalf("workspace write: %+v", r)
	}
	outside := fmt.Sprintf("/opt/aci-landlock-test-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(outside) })
	r := do(t, m, "bash_1", "run", `{"command":"d=$(echo /opt); echo x > $d/`+filepath.Base(outside)+`"}`)
	if !strings.Contains(r.Text, "exit 1") || !strings.Contains(content(m, "bash_1"), `type="sandbox"`) {
		t.Errorf("outside write: %+v\n%s", r, content(m, "bash_1"))
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("%s was written", outside)
	}
	if r := do(t, m, "bash_1", "run", `{"command":"echo x > `+outside+`"}`); !strings.Contains(r.Text, "exit 0") {
		t.Errorf("allowed write to a named path: %+v\n%s", r, content(m, "bash_1"))
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the allowed write to %s did not happen: %v", outside, err)
	}
}
