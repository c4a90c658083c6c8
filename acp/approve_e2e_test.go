package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
	"github.com/aci-dev/aci/tools/sandbox"
)

// allow_once from the editor deletes the real folder outside the
// workspace, contained, with no second question (the test's home lies
// under /tmp, which contained commands see as their session's own unless
// allowed); reject_once keeps it.
func TestACPAllowOnceDoesWhatItSays(t *testing.T) {
	if !sandbox.For(t.TempDir()).Contained() {
		t.Skip("this machine cannot contain commands")
	}
	for _, tc := range []struct {
		option string
		runs   bool
	}{{"allow_once", true}, {"reject_once", false}} {
		t.Run(tc.option, func(t *testing.T) {
			dir := t.TempDir()
			home, sentinel := preciousHome(t)
			srv := deletePrecious(t, false)
			e := startACP(t, dir, srv, "HOME="+home)
			reqs, _ := promptAnswering(t, e, dir, tc.option)
			if !strings.Contains(string(reqs[0].Params), "writable for this command") {
				t.Errorf("the question does not say what allowing grants: %s", reqs[0].Params)
			}
			_, err := os.Stat(sentinel)
			if ran := err != nil; ran != tc.runs {
				t.Errorf("deleted: %v, want %v\nmodel saw:\n%s", ran, tc.runs, srv.Requests()[1].Last())
			}
		})
	}
}

// preciousHome is a home folder holding precious/sentinel, and the
// sentinel's path: what rm -rf ~/precious destroys.
func preciousHome(t *testing.T) (home, sentinel string) {
	home = t.TempDir()
	sentinel = filepath.Join(home, "precious", "sentinel")
	testfs.File(t, sentinel, "keep me")
	return home, sentinel
}

// deletePrecious is a model that runs rm -rf ~/precious in a shell
// (uncontained, or contained), then answers done.
func deletePrecious(t *testing.T, uncontained bool) *fakeai.Server {
	params := map[string]any{"command": "rm -rf ~/precious"}
	if uncontained {
		params["uncontained"] = true
	}
	return fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(openBash, call("bash_1", "run", params))},
		fakeai.Reply{Content: "done"},
	)
}

// promptAnswering asks "clean up" in a new session of dir, answering every
// permission request with option, and returns what aci asked the editor
// (exactly one permission request, or the test fails) and the session.
func promptAnswering(t *testing.T, e *editor, dir, option string) (reqs []rpcMsg, sid string) {
	t.Helper()
	e.setHandler(func(m rpcMsg) (any, error) {
		if m.Method != "session/request_permission" {
			return nil, nil
		}
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}}, nil
	})
	e.initialize(false, false)
	sid = e.newSession(dir)
	if got := e.prompt(sid, "clean up"); got != "end_turn" {
		t.Fatalf("stopReason %q", got)
	}
	e.mu.Lock()
	reqs = append([]rpcMsg(nil), e.requests...)
	e.mu.Unlock()
	if len(reqs) != 1 || reqs[0].Method != "session/request_permission" {
		t.Fatalf("requests to the editor: %v", reqs)
	}
	return reqs, sid
}
