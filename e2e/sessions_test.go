package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

func TestTranscriptAndResume(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk\n"), 0o644)
	srv := fakeai.New(t,
		act(openFile("notes.txt")),
		fakeai.Reply{Content: "It says to remember the milk."},
		fakeai.Reply{Content: "You asked about notes.txt."},
	)
	env := []string{"XDG_STATE_HOME=" + state}
	if r := aci(t, dir, srv, "", env, "-p", "FIRST: what is in notes.txt?"); r.code != 0 {
		t.Fatalf("first run: %d %s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(state, "aci", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts: %v", files)
	}
	fi, _ := os.Stat(files[0])
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("transcript mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(files[0])
	for _, want := range []string{`"type":"meta"`, `FIRST: what is in notes.txt?`, `"event":{"type":"tool_result"`, `"type":"usage"`, `"type":"windows"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("transcript lacks %s", want)
		}
	}
	if strings.Contains(string(data), testKey) {
		t.Error("the API key is in the transcript")
	}
	r := aci(t, dir, srv, "", env, "--resume", "-p", "SECOND: what did I ask?")
	if r.code != 0 || !strings.Contains(r.stderr, "resumed") || !strings.Contains(r.stderr, "reopened file_1") {
		t.Fatalf("resume: %d %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[2].Messages
	var all []string
	for _, m := range msgs {
		all = append(all, m.Content)
	}
	joined := strings.Join(all, "\n")
	if !strings.Contains(joined, "FIRST: what is in notes.txt?") || !strings.Contains(joined, "It says to remember the milk.") {
		t.Error("resumed request lacks the earlier history")
	}
	if !strings.Contains(msgs[len(msgs)-1].Content, `<window id="file_1" app="file" title="notes.txt">`) {
		t.Errorf("file_1 not reopened:\n%s", msgs[len(msgs)-1].Content)
	}
	// Another directory has no session to resume.
	r = aci(t, t.TempDir(), fakeai.New(t, fakeai.Reply{Content: "fresh"}), "", env, "--resume", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stderr, "starting a new session") {
		t.Errorf("resume elsewhere: %d %s", r.code, r.stderr)
	}
}

func TestResumeAfterKillMidTurn(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Looking.\n" + fakeai.ToolCall(openBash)},
		fakeai.Reply{Hang: true},
		fakeai.Reply{Content: "resumed fine"},
	)
	run := start(t, dir, baseEnv(t, srv, "XDG_STATE_HOME="+state), "-p", "KILLED-QUESTION")
	srv.WaitRequests(2, 20*time.Second)
	run.signal(syscall.SIGKILL)
	run.exited(t, 30*time.Second)
	r := aci(t, dir, srv, "", []string{"XDG_STATE_HOME=" + state}, "--resume", "-p", "go on")
	if r.code != 0 || r.stdout != "resumed fine\n" {
		t.Fatalf("%d %q %s", r.code, r.stdout, r.stderr)
	}
	msgs := srv.Requests()[2].Messages
	if !strings.Contains(msgs[1].Content, "KILLED-QUESTION") || !strings.Contains(msgs[3].Content, "opened bash_1") {
		t.Errorf("resumed history: %+v", msgs[:min(4, len(msgs))])
	}
}

func TestSigtermKillsRunningCommands(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			srv := fakeai.New(t, fakeai.Reply{Content: fakeai.ToolCall(
				openBash,
				call("bash_1", "start", map[string]any{"command": "sleep 60.51 & echo $! > bg.pid; wait"}),
				bashRun("echo $$ > fg.pid; sleep 60.52"),
			)})
			run := start(t, dir, baseEnv(t, srv), "-p", "run things")
			testutil.WaitPIDs(t, filepath.Join(dir, "bg.pid"), filepath.Join(dir, "fg.pid"))
			run.signal(sig)
			if code := run.exited(t, 30*time.Second); code != 128+int(sig) {
				t.Errorf("exit %d, want %d; stderr %s", code, 128+int(sig), run.stderr)
			}
			// The pids the commands wrote are those of their own pid
			// namespaces: find the processes by their command line.
			if live := testutil.Outlived(0, "sleep 60.5"); len(live) > 0 {
				t.Errorf("processes %v survived aci", live)
			}
		})
	}
}

// A turn run in pipe mode is whole history for the server: GET
// /api/sessions/{id} gives its actions with their params, status and
// output, read from the transcript.
func TestServeShowsAPipeTurnWithItsActions(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	shared := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	ai := fakeai.New(t,
		act(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}}),
		act(fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "echo pipe-history-output"}}),
		fakeai.Reply{Content: "piped answer"},
	)
	r := aci(t, dir, ai, "", shared, "-p", "run the echo", "--output-format", "json")
	var res struct {
		SessionID string `json:"session_id"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || res.SessionID == "" {
		t.Fatalf("pipe run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	s := startServe(t, dir, ai, shared, "--addr", "127.0.0.1:0")
	var info struct {
		Turns []struct {
			Question, Answer string
			Actions          []struct {
				CallID   string `json:"call_id"`
				WindowID string `json:"window_id"`
				ActionID string `json:"action_id"`
				Params   map[string]any
				Status   string
				Output   string
			}
			Steers []string
		}
	}
	if code := s.do(t, "GET", "/api/sessions/"+res.SessionID, "", &info); code != 200 {
		t.Fatalf("GET the pipe's session: %d", code)
	}
	if len(info.Turns) != 1 || info.Turns[0].Question != "run the echo" || info.Turns[0].Answer != "piped answer" || len(info.Turns[0].Actions) != 2 {
		t.Fatalf("turns %+v", info.Turns)
	}
	a := info.Turns[0].Actions[1]
	if a.CallID == "" || a.WindowID != "bash_1" || a.ActionID != "run" || a.Status != "ok" || a.Params["command"] != "echo pipe-history-output" ||
		!strings.Contains(a.Output, "pipe-history-output") {
		t.Errorf("the run action %+v", a)
	}
}

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
	id := one.create(t)
	one.message(t, id, "question one")
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
	two.message(t, id, "question three")
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
		if ev, _ := rec["event"].(map[string]any); ev["type"] == "turn" || ev["type"] == "result" {
			order = append(order, fmt.Sprint(ev["type"]))
		}
	}
	if got := strings.Join(order, ","); got != "turn,result,turn,result,turn,result,turn,result" {
		t.Errorf("turn and result events in order %s", got)
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

func TestFlagValidation(t *testing.T) {
	srv := fakeai.New(t)
	for _, tt := range []struct {
		name   string
		env    []string
		args   []string
		stderr string
	}{
		{name: "max steps 0", args: []string{"--max-steps", "0", "-p", "hi"}, stderr: "--max-steps must be at least 1, got 0"},
		{name: "max steps word", args: []string{"--max-steps", "lots", "-p", "hi"}, stderr: `--max-steps must be a whole number, got "lots"`},
		{name: "stream maybe", env: []string{"ACI_STREAM=maybe"}, args: []string{"-p", "hi"}, stderr: `ACI_STREAM must be 0 or 1, got "maybe"`},
		{name: "empty model", args: []string{"--model", "", "-p", "hi"}, stderr: "--model needs a model name"},
		{name: "stray argument", args: []string{"-p", "hi", "extra"}, stderr: `unexpected argument "extra"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := aci(t, t.TempDir(), srv, "", tt.env, tt.args...)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code != 2 || len(lines) != 1 || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", r.code, r.stderr, tt.stderr)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("bad usage made %d requests", n)
	}
}

func TestSessionsListAndResumeByID(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	srv := fakeai.New(t, fakeai.Reply{Content: "apple noted"}, fakeai.Reply{Content: "pear noted"}, fakeai.Reply{Content: "it was apple"}, fakeai.Reply{Content: "and again"})
	for _, q := range []string{"remember apple", "remember pear"} {
		if r := aci(t, dir, srv, "", env, "-p", q); r.code != 0 {
			t.Fatalf("%s: %d %s", q, r.code, r.stderr)
		}
	}
	// --sessions needs no key and lists newest first.
	r := aci(t, dir, srv, "", append(env, "OPENAI_API_KEY=", "OPENAI_BASE_URL=https://api.example.com/v1"), "--sessions")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.Contains(lines[0], "remember pear") || !strings.Contains(lines[1], "remember apple") {
		t.Fatalf("--sessions: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	row := regexp.MustCompile(`^(\d{8}-\d{6}-[0-9a-f]{8})\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+1 turn\s+remember apple$`)
	m := row.FindStringSubmatch(lines[1])
	if m == nil {
		t.Fatalf("row %q", lines[1])
	}
	// The older one, by id, both spellings.
	r = aci(t, dir, srv, "", env, "--resume", m[1], "-p", "which fruit first?")
	if r.code != 0 || !strings.Contains(r.stderr, "resumed "+m[1]) {
		t.Fatalf("--resume ID: %d %s", r.code, r.stderr)
	}
	last := srv.Requests()[2]
	if !mentions(last, "remember apple") || mentions(last, "remember pear") {
		t.Errorf("resumed the wrong session: %+v", last.Messages)
	}
	r = aci(t, dir, srv, "", env, "--resume="+m[1], "-p", "again?")
	if r.code != 0 || !strings.Contains(r.stderr, "resumed "+m[1]) {
		t.Fatalf("--resume=ID: %d %s", r.code, r.stderr)
	}
	r = aci(t, dir, srv, "", env, "--resume", "nosuch", "-p", "x")
	if r.code != 2 || !strings.Contains(r.stderr, `no session "nosuch"`) {
		t.Errorf("unknown id: %d %s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(state, "aci", "sessions", "*.jsonl"))
	if len(files) != 2 {
		t.Errorf("transcripts: %d, want 2", len(files))
	}
}

// mentions reports whether any message of a request contains text.
func mentions(req fakeai.Request, text string) bool {
	for _, m := range req.Messages {
		if strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}

func TestPipeProgressShowsTheWork(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakeai.New(t,
		act(
			openFile("a.txt"),
			call("file_1", "edit", map[string]any{"old_text": "old line", "new_text": "new line"}),
			openBash,
			bashRun("echo boom; exit 3"),
		),
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, dir, srv, "edit it", nil)
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"✓ open a.txt · ok: opened file_1", "    -old line\n    +new line\n",
		"✗ run echo boom; exit 3 · failed: exit 3", "    │ boom\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
