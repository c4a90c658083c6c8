package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/tools/sandbox"
)

// In the REPL, y to "deletes outside the workspace" deletes the real
// folder (here beside the workspace in /tmp, which contained commands
// otherwise see as their session's own) with one question, which says
// what allowing grants; n keeps it.
func TestREPLApprovalDoesWhatItSays(t *testing.T) {
	if !sandbox.For(t.TempDir()).Contained() {
		t.Skip("this machine cannot contain commands")
	}
	for _, key := range []string{"y", "n"} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			target := filepath.Join(t.TempDir(), "build")
			os.MkdirAll(target, 0o755)
			os.WriteFile(filepath.Join(target, "out.o"), []byte("object"), 0o644)
			srv := fakeai.New(t,
				fakeai.Reply{Content: fakeai.ToolCall(
					fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}},
					fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "rm -rf " + target}},
				)},
				fakeai.Reply{Content: "finished"},
			)
			s := startREPL(t, srv, nil)
			s.waitPrompt()
			s.typeLine("clean the build")
			scr := s.waitFor("allow? ›")
			if !strings.Contains(scr, "writable for this command") {
				t.Errorf("the question does not say what allowing grants:\n%s", scr)
			}
			s.keys(key)
			s.waitFor("finished")
			scr = s.waitPrompt()
			if n := strings.Count(scr, "allow? ›"); n != 1 {
				t.Errorf("asked %d times:\n%s", n, scr)
			}
			_, err := os.Stat(target)
			if gone := err != nil; gone != (key == "y") {
				t.Errorf("after %s the folder is gone: %v\n%s", key, gone, scr)
			}
		})
	}
}
