package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/tools/sandbox"
)

// In the REPL, what is typed at "deletes outside the workspace" does what
// it says to the real folder (here beside the workspace in /tmp, which
// contained commands otherwise see as their session's own), with one
// question: only y, yes, a or always with Enter allow; a sentence denies,
// its words (or those after no) reach the model as the reason, and
// nothing typed there becomes a question to the model. A key without
// Enter answers nothing.
func TestREPLApprovalDoesWhatItSays(t *testing.T) {
	if !sandbox.For(t.TempDir()).Contained() {
		t.Skip("this machine cannot contain commands")
	}
	for _, tc := range []struct {
		name   string
		typed  []string // each typed, then Enter
		delete bool
		reason string // what the model reads after "they said: "
	}{
		{name: "y", typed: []string{"y"}, delete: true},
		{name: "n", typed: []string{"n"}},
		{name: "a", typed: []string{"a"}, delete: true},
		{name: "yes", typed: []string{"yes"}, delete: true},
		{name: "always", typed: []string{"always"}, delete: true},
		{name: "absolutely not", typed: []string{"absolutely not"}, reason: "absolutely not"},
		{name: "no, keep it", typed: []string{"no, keep it"}, reason: "keep it"},
		{name: "n then why", typed: []string{"n use make clean"}, reason: "use make clean"},
		{name: "yes please is asked again", typed: []string{"yes please", "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
				fakeai.Reply{Content: "a second turn"},
			)
			s := readyREPL(t, srv, nil)
			s.typeLine("clean the build")
			scr := s.waitFor("allow? ›")
			if !strings.Contains(scr, "writable for this command") {
				t.Errorf("the question does not say what allowing grants:\n%s", scr)
			}
			for i, line := range tc.typed {
				if i > 0 {
					s.waitFor("not an answer: " + tc.typed[i-1])
				}
				s.typeLine(line)
			}
			s.waitFor("finished")
			scr = s.waitPrompt()
			// The answer is said before what the command did.
			if a, r := strings.Index(scr, "✓ allowed"), strings.Index(scr, "✓ exit 0"); tc.delete && (a < 0 || r < a) {
				t.Errorf("the answer is not said before the command's result:\n%s", scr)
			}
			if n := strings.Count(scr, "allow? ›"); n != len(tc.typed) {
				t.Errorf("asked %d times:\n%s", n, scr)
			}
			_, err := os.Stat(target)
			if gone := err != nil; gone != tc.delete {
				t.Errorf("after %q the folder is gone: %v\n%s", tc.typed, gone, scr)
			}
			time.Sleep(200 * time.Millisecond) // a stray question would be asked by now
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2 (no question from what was typed):\n%s", len(reqs), scr)
			}
			denied := mentions(reqs[1], `status="denied"`)
			if denied == tc.delete {
				t.Errorf("denied %v:\n%s", denied, reqs[1].Last())
			}
			if tc.reason != "" && !mentions(reqs[1], "they said: "+tc.reason) {
				t.Errorf("the model did not read the reason %q: %+v", tc.reason, reqs[1].Last())
			}
		})
	}
}

// A single key, without Enter, answers nothing: the question waits, and
// the keys typed after it make the line that answers.
func TestREPLApprovalKeyWithoutEnterWaits(t *testing.T) {
	t.Parallel()
	s, srv, target := askedToWrite(t)
	for _, k := range []string{"a", "y"} {
		s.tmux("send-keys", "-t", "aci", "-l", k)
		s.waitFor("allow? › " + k)
		time.Sleep(300 * time.Millisecond)
		if scr := s.screen(); strings.Contains(scr, "allowed") || strings.Contains(scr, "denied") {
			t.Fatalf("%q without Enter answered:\n%s", k, scr)
		}
		if _, err := os.Stat(target); err == nil {
			t.Fatalf("%q without Enter wrote the file", k)
		}
		s.keys("BSpace")
	}
	s.exchange("keep it", "finished")
	if _, err := os.Stat(target); err == nil {
		t.Errorf("the write happened")
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !mentions(reqs[1], "they said: keep it") {
		t.Errorf("the model's second request: %d requests", len(reqs))
	}
}
