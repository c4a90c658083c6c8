package windows

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/loopback"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/sandbox"
)

// A contained command's request to a host off the allow list is asked in
// the window's name, naming the host and the command; "always" remembers
// the host for the session, and a background task gets only what was
// remembered. Asking to run outside the sandbox says the network opens.
func TestBashNetworkAsked(t *testing.T) {
	origin := loopback.Serve(t, "127.0.0.3", loopback.Echo("reached "))

	var mu sync.Mutex
	var asked []ApprovalRequest
	answer := Decision{Message: "not that one"}
	ap := ApproverFunc(func(_ context.Context, req ApprovalRequest) Decision {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req)
		return answer
	})
	dir := t.TempDir()
	if !sandbox.For(dir).NetContained() {
		t.Skip("this machine does not keep contained commands off the network")
	}
	m := NewManager(Env{Workdir: dir, OutputLimit: 30000, Approver: ap, Network: netproxy.New(netproxy.Policy{})}, BashApp)
	t.Cleanup(m.CloseAll)
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	host := origin.Listener.Addr().String()
	cmd := fmt.Sprintf("curl -fsS -m 10 http://%s/one", host)
	r := do(t, m, "bash_1", "run", fmt.Sprintf(`{"command":%q}`, cmd))
	if len(asked) != 1 || asked[0].Kind != "network" || asked[0].Subject != "connect to "+host ||
		!strings.Contains(asked[0].Reason, cmd) || asked[0].WindowID != "bash_1" {
		t.Fatalf("asked %+v", asked)
	}
	view := m.find("bash_1").View().Content
	if r.Status != protocol.StatusOK || !r.Failed || !strings.Contains(view, "network proxy refused "+host) {
		t.Errorf("denied request: %+v\n%s", r, view)
	}

	answer = Decision{Allow: true, Always: true}
	r = do(t, m, "bash_1", "run", fmt.Sprintf(`{"command":"curl -fsS -m 10 http://%s/two"}`, host))
	if r.Output != "reached /two" || len(asked) != 2 {
		t.Fatalf("allowed always: %+v, asked %d", r, len(asked))
	}
	r = do(t, m, "bash_1", "run", fmt.Sprintf(`{"command":"curl -fsS -m 10 http://%s/three"}`, host))
	if r.Output != "reached /three" || len(asked) != 2 {
		t.Fatalf("remembered host: %+v, asked %d", r, len(asked))
	}

	// A background task: the remembered host passes, another is refused
	// without a question.
	do(t, m, "bash_1", "start", fmt.Sprintf(`{"command":"curl -fsS -m 10 http://%s/bg; curl -fsS -m 10 http://127.0.0.4:9/other"}`, host))
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(m.find("bash_1").View().Content, "failed") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	view = m.find("bash_1").View().Content
	if !strings.Contains(view, "reached /bg") || !strings.Contains(view, "refused 127.0.0.4:9") || len(asked) != 2 {
		t.Errorf("background task: asked %d\n%s", len(asked), view)
	}

	r = do(t, m, "bash_1", "run", `{"command":"true","uncontained":true}`)
	if len(asked) != 3 || !strings.Contains(asked[2].Reason, "network open") {
		t.Errorf("uncontained question: %+v", asked[len(asked)-1])
	}
}
