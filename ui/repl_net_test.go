//go:build linux

package ui

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/tools/sandbox"
)

// A contained command's request to a host off the allow list is asked at
// the terminal while the command runs, naming the host and the command;
// "a" allows the host for the session, so a second request passes unasked.
func TestREPLNetworkQuestion(t *testing.T) {
	t.Parallel()
	if !sandbox.For(t.TempDir()).NetContained() {
		t.Skip("this machine does not keep contained commands off the network")
	}
	ln, err := net.Listen("tcp", "127.0.0.3:0")
	if err != nil {
		t.Skipf("no 127.0.0.3 here: %v", err)
	}
	origin := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "origin-says-"+strings.TrimPrefix(r.URL.Path, "/"))
	}))
	origin.Listener = ln
	origin.Start()
	defer origin.Close()
	host := ln.Addr().String()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}},
			fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "curl -fsS -m 20 http://" + host + "/first"}},
			fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "curl -fsS -m 20 http://" + host + "/second"}},
		)},
		fakeai.Reply{Content: "fetched both"},
	)
	s := readyREPL(t, srv, nil)
	s.typeLine("fetch it")
	screen := s.waitFor("allow? ›")
	if !strings.Contains(screen, "approval needed: connect to "+host) || !strings.Contains(screen, "curl -fsS -m 20 http://"+host+"/first") {
		t.Fatalf("the question does not name the host and the command:\n%s", screen)
	}
	s.exchange("a", "fetched both")
	if n := strings.Count(s.screen(), "approval needed"); n != 1 {
		t.Errorf("asked %d times:\n%s", n, s.screen())
	}
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "origin-says-first") || !strings.Contains(last, "origin-says-second") {
		t.Errorf("the model did not see both answers")
	}
}
