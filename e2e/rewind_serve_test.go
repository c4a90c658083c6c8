package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

func fileEdit(target, window, old, new string) string {
	return fakeai.ToolCall(
		fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": target}},
		fakeai.Call{Window: window, Action: "edit", Params: map[string]any{"old_text": old, "new_text": new}})
}

// The server rewinds a session to before a question: the files those
// turns changed come back, except one someone else changed since (named);
// the conversation continues in a branch that holds the turns before it,
// whose next request repeats an earlier one's start byte for byte; and
// aci --resume continues that branch.
func TestServeRewind(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	shared := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	for name, data := range map[string]string{"a.txt": "a0\n", "b.txt": "b0\n", "c.txt": "c0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(dir, name)); return string(b) }
	ai := fakeai.New(t,
		fakeai.Reply{Content: fileEdit("a.txt", "file_1", "a0", "a1")},
		fakeai.Reply{Content: "one done"},
		fakeai.Reply{Content: fileEdit("b.txt", "file_2", "b0", "b2")},
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": "c.txt"}},
			fakeai.Call{Window: "file_3", Action: "edit", Params: map[string]any{"old_text": "c0", "new_text": "c2"}})},
		fakeai.Reply{Content: "two done"},
		fakeai.Reply{Content: "answer on the branch"},
		fakeai.Reply{Content: "resumed answer"},
	)
	s := startServe(t, dir, ai, shared, "--addr", "127.0.0.1:0")
	id := s.create(t)
	s.ask(t, id, "change a", 1)
	s.ask(t, id, "change b and c", 2)
	if read("a.txt") != "a1\n" || read("b.txt") != "b2\n" || read("c.txt") != "c2\n" {
		t.Fatalf("the turns did not edit: %q %q %q", read("a.txt"), read("b.txt"), read("c.txt"))
	}
	os.WriteFile(filepath.Join(dir, "c.txt"), []byte("c by someone else\n"), 0o644)

	for _, bad := range []string{`{}`, `{"turn":0}`, `{"turn":9}`, `{"turn":1,"files":false,"conversation":false}`, `{"turn":1,"extra":1}`} {
		var e struct{ Error string }
		if code := s.do(t, "POST", "/api/sessions/"+id+"/rewind", bad, &e); code != 400 || e.Error == "" {
			t.Errorf("rewind %s: %d %q", bad, code, e.Error)
		}
	}
	var res struct {
		Turn     int
		Question string
		ID       string
		Parent   string
		FromTurn int `json:"from_turn"`
		Files    struct {
			Restored, Removed, Refused, Failed []string
			Untracked                          string
		}
	}
	if code := s.do(t, "POST", "/api/sessions/"+id+"/rewind", `{"turn":2}`, &res); code != 200 {
		t.Fatalf("rewind: %d", code)
	}
	if res.Turn != 2 || res.Question != "change b and c" || res.Parent != id || res.ID == id || res.FromTurn != 1 {
		t.Errorf("rewind answered %+v", res)
	}
	if !slices.Equal(res.Files.Restored, []string{"b.txt"}) || !slices.Equal(res.Files.Refused, []string{"c.txt"}) || len(res.Files.Failed) != 0 {
		t.Errorf("files %+v", res.Files)
	}
	if !strings.Contains(res.Files.Untracked, "outside the workspace") || !strings.Contains(res.Files.Untracked, "not tracked") {
		t.Errorf("the answer does not say commands' changes outside the workspace are not tracked: %+v", res.Files)
	}
	if read("a.txt") != "a1\n" || read("b.txt") != "b0\n" || read("c.txt") != "c by someone else\n" {
		t.Errorf("after the rewind: a %q b %q c %q", read("a.txt"), read("b.txt"), read("c.txt"))
	}
	var branch struct{ Turns []struct{ Question string } }
	s.do(t, "GET", "/api/sessions/"+res.ID, "", &branch)
	if len(branch.Turns) != 1 || branch.Turns[0].Question != "change a" {
		t.Errorf("the branch holds %+v", branch.Turns)
	}
	var old struct{ Turns []struct{ Question string } }
	s.do(t, "GET", "/api/sessions/"+id, "", &old)
	if len(old.Turns) != 2 {
		t.Errorf("the session left behind lost its turns: %+v", old.Turns)
	}

	n := len(ai.Requests())
	s.ask(t, res.ID, "change b only", 2)
	reqs := ai.Requests()
	next := reqs[n]
	if !strings.Contains(string(next.Body), "change a") || strings.Contains(string(next.Body), "change b and c") {
		t.Errorf("the branch's request: %s", next.Body)
	}
	// The rewound history is the start of turn 2's first request, byte
	// for byte.
	msgs := func(r fakeai.Request) []json.RawMessage {
		var b struct{ Messages []json.RawMessage }
		json.Unmarshal(r.Body, &b)
		return b.Messages
	}
	now, before := msgs(next), msgs(reqs[2])
	if len(now) != len(before) {
		t.Fatalf("%d messages after the rewind, %d in turn 2's first request", len(now), len(before))
	}
	for i := range now[:len(now)-1] {
		if !bytes.Equal(now[i], before[i]) {
			t.Errorf("message %d differs:\n%s\n%s", i, now[i], before[i])
		}
	}

	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(t); code != 0 {
		t.Fatalf("serve exit %d", code)
	}
	r := aci(t, dir, ai, "", shared, "--sessions")
	if !strings.Contains(r.stdout, "└ "+res.ID) {
		t.Errorf("--sessions does not show the branch under its parent:\n%s", r.stdout)
	}
	// --resume continues the newest: the rewound conversation.
	r = aci(t, dir, ai, "", shared, "--resume", "-p", "and then")
	if r.code != 0 || !strings.Contains(r.stdout, "resumed answer") {
		t.Fatalf("--resume: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs = ai.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "change b only") || strings.Contains(last, "change b and c") {
		t.Errorf("--resume did not continue the rewound conversation: %s", last)
	}
}
