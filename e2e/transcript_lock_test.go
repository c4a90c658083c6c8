package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// wholeLines fails the test for a transcript line that is not a record.
func wholeLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Errorf("%s line %d is not a record: %.80q", filepath.Base(path), i+1, line)
		}
		out = append(out, r)
	}
	return out
}

// Two aci processes never write one transcript: a second server and a
// CLI --resume get a clear answer naming the writer (409, exit 2) while
// the first holds the session, and go ahead once it lets go. The
// transcript stays whole lines, one turn after the other.
func TestOneWriterPerTranscript(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	shared := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	ai := fakeai.New(t,
		fakeai.Reply{Content: "first answer"},
		fakeai.Reply{Content: "answer from the CLI", Delay: 3 * time.Second},
		fakeai.Reply{Content: "second server's answer"},
		fakeai.Reply{Content: "answer after the kill"},
	)
	one := startServe(t, dir, ai, shared, "--addr", "127.0.0.1:0")
	var created struct{ ID string }
	if code := one.do(t, "POST", "/api/sessions", `{}`, &created); code != 201 {
		t.Fatalf("create: %d", code)
	}
	id := created.ID
	if code := one.do(t, "POST", "/api/sessions/"+id+"/messages", `{"text":"question one"}`, nil); code != 202 {
		t.Fatalf("message: %d", code)
	}
	one.waitIdle(t, id, 1)

	// The first server holds it: the CLI is refused, naming the server.
	r := aci(t, dir, ai, "", shared, "--resume", id, "-p", "from the CLI")
	writer := fmt.Sprintf("pid %d: aci serve", one.cmd.Process.Pid)
	if r.code != 2 || !strings.Contains(r.stderr, "being written by another aci process") || !strings.Contains(r.stderr, writer) {
		t.Errorf("--resume of a session a server holds: exit %d\n%s", r.code, r.stderr)
	}
	// So is a second server in the same folder, when it sends; looking
	// takes no lock.
	two := startServe(t, dir, ai, shared, "--addr", "127.0.0.1:0")
	var e struct{ Error string }
	if code := two.do(t, "GET", "/api/sessions/"+id, "", nil); code != 200 {
		t.Errorf("a second server looking: %d, want 200", code)
	}
	if code := two.do(t, "POST", "/api/sessions/"+id+"/messages", `{"text":"from the second server"}`, &e); code != 409 || !strings.Contains(e.Error, writer) {
		t.Errorf("a message through the second server: %d %q, want 409 naming %q", code, e.Error, writer)
	}

	// The first lets go; the CLI takes it, and while it writes the second
	// server is refused, naming the CLI.
	if code := one.do(t, "DELETE", "/api/sessions/"+id, "", nil); code != 200 {
		t.Fatalf("delete: %d", code)
	}
	cli := start(t, dir, baseEnv(t, ai, shared...), "--resume", id, "-p", "from the CLI")
	ai.WaitRequests(2, 30*time.Second) // the CLI's turn is under way
	e.Error = ""
	if code := two.do(t, "POST", "/api/sessions/"+id+"/messages", `{"text":"not now"}`, &e); code != 409 || !strings.Contains(e.Error, fmt.Sprintf("pid %d: aci --resume", cli.cmd.Process.Pid)) {
		t.Errorf("the second server while the CLI writes: %d %q", code, e.Error)
	}
	if code := cli.exited(t, 60*time.Second); code != 0 {
		t.Fatalf("the CLI: exit %d\n%s", code, cli.stderr)
	}
	// The CLI gone, the second server continues the session.
	if code := two.do(t, "POST", "/api/sessions/"+id+"/messages", `{"text":"question three"}`, nil); code != 202 {
		t.Fatalf("message after the CLI: %d", code)
	}
	two.waitIdle(t, id, 3)

	// A writer killed outright lets go with its process: the lock is the
	// kernel's, and no stale file holds the session.
	two.cmd.Process.Signal(syscall.SIGKILL)
	two.wait(t)
	r = aci(t, dir, ai, "", shared, "--resume", id, "-p", "after the kill")
	if r.code != 0 || !strings.Contains(r.stdout, "answer after the kill") {
		t.Errorf("--resume after the writer was killed: %d\n%s", r.code, r.stderr)
	}

	recs := wholeLines(t, filepath.Join(home, "state", "aci", "sessions", id+".jsonl"))
	var order []string
	for _, rec := range recs {
		if rec["type"] == "turn" || rec["type"] == "answer" {
			order = append(order, fmt.Sprint(rec["type"]))
		}
	}
	if got := strings.Join(order, ","); got != "turn,answer,turn,answer,turn,answer,turn,answer" {
		t.Errorf("turn and answer records in order %s", got)
	}
}

// A transcript whose last line was cut (aci killed mid-write) loads
// without it, says so, and the next record starts a line of its own.
func TestCutTranscriptLine(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	shared := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	ai := fakeai.New(t, fakeai.Reply{Content: "first answer"}, fakeai.Reply{Content: "second answer"}, fakeai.Reply{Content: "third answer"})
	if r := aci(t, dir, ai, "", shared, "-p", "question one"); r.code != 0 {
		t.Fatalf("first run: %d\n%s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(home, "state", "aci", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts: %v", files)
	}
	path := files[0]
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"message","role":"user","content":"a record cut in the mid`)
	f.Close()

	r := aci(t, dir, ai, "", shared, "--resume", id, "-p", "question two")
	if r.code != 0 || !strings.Contains(r.stdout, "second answer") {
		t.Fatalf("--resume of a cut transcript: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "dropped 1 damaged line") {
		t.Errorf("the cut line was not reported:\n%s", r.stderr)
	}
	wholeLines(t, path)
	r = aci(t, dir, ai, "", shared, "--resume", id, "-p", "question three")
	if r.code != 0 || !strings.Contains(r.stderr, "2 earlier turns") || strings.Contains(r.stderr, "damaged") {
		t.Errorf("the next resume: %d\n%s", r.code, r.stderr)
	}
	last := ai.Requests()[len(ai.Requests())-1]
	if body := string(last.Body); !strings.Contains(body, "question one") || !strings.Contains(body, "question two") || strings.Contains(body, "cut in the mid") {
		t.Errorf("the model was sent %s", body)
	}
}
