package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/sse"
	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/tools/sandbox"
)

// served is a running `aci serve`: its process, address and token.
type served struct {
	*running
	base  string // http://HOST:PORT
	token string
}

// startServe runs the built binary as `aci serve args...` in dir and reads
// its one stdout line.
func startServe(t *testing.T, dir string, srv *fakeai.Server, env []string, args ...string) *served {
	t.Helper()
	s := &served{running: start(t, dir, baseEnv(t, srv, env...), append([]string{"serve"}, args...)...)}
	line, _ := waitFor(t, 30*time.Second, "the address line", func() (string, bool) {
		out := s.stdout.String()
		return out, strings.Contains(out, "\n")
	})
	line, _, _ = strings.Cut(line, "\n")
	rest, ok := strings.CutPrefix(line, "aci serve: http://")
	host, token, found := strings.Cut(rest, "/#token=")
	if !ok || !found || token == "" {
		t.Fatalf("first stdout line %q; stderr:\n%s", line, s.stderr)
	}
	s.base, s.token = "http://"+host, token
	return s
}

func (s *served) do(t *testing.T, method, path, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, s.base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %d %q", method, path, resp.StatusCode, data)
		}
	}
	return resp.StatusCode
}

// events follows a session's event stream and sends the data of each
// event of kind on the channel, until the test ends.
func (s *served) events(t *testing.T, id, kind string) <-chan map[string]any {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan map[string]any, 8)
	go func() {
		defer resp.Body.Close()
		sse.Read(resp.Body, func(ev sse.Event) {
			var m map[string]any
			if ev.Type == kind && json.Unmarshal([]byte(ev.Data), &m) == nil {
				ch <- m
			}
		})
	}()
	return ch
}

// next is the next event events sends, within a minute.
func (s *served) next(t *testing.T, ch <-chan map[string]any, kind string) map[string]any {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(60 * time.Second):
		t.Fatalf("no %s event; stderr:\n%s", kind, s.stderr)
	}
	return nil
}

// create makes a session and returns its id.
func (s *served) create(t *testing.T) string {
	t.Helper()
	var created struct{ ID string }
	if code := s.do(t, "POST", "/api/sessions", `{}`, &created); code != 201 {
		t.Fatalf("create: %d", code)
	}
	return created.ID
}

// message sends text to session id as the person's message (202: taken).
func (s *served) message(t *testing.T, id, text string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"text": text})
	if code := s.do(t, "POST", "/api/sessions/"+id+"/messages", string(body), nil); code != 202 {
		t.Fatalf("message %q: %d", text, code)
	}
}

// ask sends a question to a served session and waits for its turn to end.
func (s *served) ask(t *testing.T, id, question string, turns int) {
	t.Helper()
	s.message(t, id, question)
	s.waitIdle(t, id, turns)
}

// waitIdle polls a served session until its turns have all ended.
func (s *served) waitIdle(t *testing.T, id string, turns int) {
	t.Helper()
	type info struct {
		State string
		Turns []struct{ Answer string }
	}
	waitFor(t, 30*time.Second, fmt.Sprintf("turn %d to end", turns), func() (info, bool) {
		var i info
		s.do(t, "GET", "/api/sessions/"+id, "", &i)
		return i, i.State == "idle" && len(i.Turns) == turns && i.Turns[turns-1].Answer != ""
	})
}

// wait waits for the process to exit and returns its exit code.
func (s *served) wait(t *testing.T) int {
	t.Helper()
	return s.exited(t, 30*time.Second)
}

// SIGTERM with a turn running a command: the turn is cancelled, its
// processes end, the transcript stays, and aci exits 0.
func TestServeSigtermWithTurnRunning(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir, state := t.TempDir(), t.TempDir()
			srv := fakeai.New(t, fakeai.Reply{Content: fakeai.ToolCall(
				openBash,
				call("bash_1", "start", map[string]any{"command": "sleep 60.61 & echo $! > bg.pid; wait"}),
				bashRun("echo $$ > fg.pid; sleep 60.62"),
			)})
			s := startServe(t, dir, srv, []string{"XDG_STATE_HOME=" + state}, "--addr", "127.0.0.1:0")
			id := s.create(t)
			s.message(t, id, "RUNNING-QUESTION")
			testutil.WaitPIDs(t, filepath.Join(dir, "bg.pid"), filepath.Join(dir, "fg.pid"))
			s.cmd.Process.Signal(sig)
			if code := s.wait(t); code != 0 {
				t.Errorf("exit %d, want 0; stderr:\n%s", code, s.stderr.String())
			}
			// The pids the commands wrote are their pid namespaces' when
			// they run contained: their processes are found by command line.
			// A pid namespace may take a moment to be torn down.
			if live := testutil.Outlived(5*time.Second, "sleep 60.6"); len(live) > 0 {
				t.Errorf("processes %v survived aci serve", live)
			}
			if _, more, _ := strings.Cut(s.stdout.String(), "\n"); more != "" {
				t.Errorf("more than one line on stdout: %q", more)
			}
			data, err := os.ReadFile(filepath.Join(state, "aci", "sessions", id+".jsonl"))
			if err != nil || !bytes.Contains(data, []byte("RUNNING-QUESTION")) {
				t.Errorf("transcript: %v %s", err, data)
			}
			if strings.Contains(s.stderr.String(), s.token) {
				t.Error("the token is in the log")
			}
		})
	}
}

// Listening beyond loopback works, with a warning.
func TestServeWarnsOffLoopback(t *testing.T) {
	s := startServe(t, t.TempDir(), nil, []string{"OPENAI_BASE_URL=http://127.0.0.1:9/v1"}, "--addr", "0.0.0.0:0")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.stderr.String(), "warning: listening on 0.0.0.0:") {
		if time.Now().After(deadline) {
			t.Fatalf("no warning; stderr:\n%s", s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The address to open is one a browser can reach here.
	if !strings.HasPrefix(s.base, "http://127.0.0.1:") {
		t.Errorf("address %s", s.base)
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	if code := s.wait(t); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// A turn through the server sends the model the same bytes as the same
// turn in pipe mode.
func TestServeSendsWhatPipeModeSends(t *testing.T) {
	replies := func() []fakeai.Reply {
		return []fakeai.Reply{
			{Content: "Reading.\n" + fakeai.ToolCall(
				openFile("notes.txt"),
				openBash,
				bashRun("wc -l notes.txt"),
			)},
			{Content: "The notes say hello."},
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644)
	pipeAI := fakeai.New(t, replies()...)
	if r := aci(t, dir, pipeAI, "", nil, "-p", "what do the notes say?"); r.code != 0 {
		t.Fatalf("pipe: %d %s", r.code, r.stderr)
	}
	serveAI := fakeai.New(t, replies()...)
	s := startServe(t, dir, serveAI, nil, "--addr", "127.0.0.1:0")
	id := s.create(t)
	s.message(t, id, "what do the notes say?")
	got := serveAI.WaitRequests(2, 30*time.Second)
	want := pipeAI.Requests()
	if len(got) != len(want) {
		t.Fatalf("%d requests through the server, %d in pipe mode", len(got), len(want))
	}
	// A command's duration is the one thing two runs do not share.
	took := regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?m?s\b`)
	size := 0
	for i := range want {
		size += len(want[i].Body)
		g, w := took.ReplaceAll(got[i].Body, []byte("Tms")), took.ReplaceAll(want[i].Body, []byte("Tms"))
		if !bytes.Equal(g, w) {
			t.Errorf("request %d differs:\nserver %s\npipe   %s", i+1, got[i].Body, want[i].Body)
		}
	}
	t.Logf("%d requests, %d bytes: the same through the server and in pipe mode (command durations aside)", len(want), size)
}

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
			id := s.create(t)
			approvals := s.events(t, id, "approval")
			s.message(t, id, "clean the build")
			a := s.next(t, approvals, "approval")
			reason, _ := a["reason"].(string)
			if !strings.Contains(reason, "allowing makes ") || !strings.Contains(reason, "writable for this command") {
				t.Errorf("the question does not say what allowing grants: %q", reason)
			}
			reqID, _ := a["request_id"].(string)
			if code := s.do(t, "POST", "/api/sessions/"+id+"/approvals/"+reqID, `{"decision":"`+tc.decision+`"}`, nil); code != 200 {
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

// The server keeps the person's settings limits: a session's third
// question past max_turns 2 gets a result with outcome "limit" and is not
// sent; a session that spends max_budget_usd ends its turn there.
func TestServeKeepsSettingsBudgets(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, ".config", "aci", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"prices": {"test-model": {"input": 1000, "output": 0}}, "limits": {"max_turns": 2, "max_budget_usd": 2.5}}`), 0o600)
	ai := fakeai.New(t)
	busy := false
	ai.Handle(func(req fakeai.Request) fakeai.Reply {
		if strings.Contains(req.LastUser(), "spend") || busy {
			busy = true
			return fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": "x" + string(rune('a'+req.N)) + ".txt"})),
				PromptTokens: 1000, CompletionTokens: 1}
		}
		return fakeai.Reply{Content: "An answer.", PromptTokens: 100, CompletionTokens: 1} // $0.10
	})
	s := startServe(t, t.TempDir(), ai, []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}, "--addr", "127.0.0.1:0")

	var a struct{ ID string }
	s.do(t, "POST", "/api/sessions", `{}`, &a)
	results := s.events(t, a.ID, "result")
	for i, q := range []string{"one", "two"} {
		s.message(t, a.ID, q)
		if r := s.next(t, results, "result"); r["outcome"] != "answered" {
			t.Fatalf("turn %d: %v", i+1, r)
		}
	}
	s.message(t, a.ID, "three")
	r := s.next(t, results, "result")
	if r["outcome"] != "limit" || r["limit"] != "turns" || !strings.Contains(r["error"].(string), "2 turns of 2") {
		t.Fatalf("third turn: %v", r)
	}
	if n := len(ai.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}

	var b struct{ ID string }
	s.do(t, "POST", "/api/sessions", `{}`, &b)
	results = s.events(t, b.ID, "result")
	s.message(t, b.ID, "spend it")
	r = s.next(t, results, "result")
	if r["outcome"] != "limit" || r["limit"] != "budget" || !strings.Contains(r["error"].(string), "spent $3.00 of $2.50") || r["total_cost_usd"] != float64(3) {
		t.Fatalf("budget: %v", r)
	}
	if n := len(ai.Requests()); n != 5 {
		t.Errorf("%d requests, want 5 (2, then 3 of $1)", n)
	}
	// The session is kept and goes idle (its state follows the result
	// event): its transcript is there.
	waitFor(t, 10*time.Second, "the session to be kept and idle", func() (string, bool) {
		var info struct{ State string }
		code := s.do(t, "GET", "/api/sessions/"+b.ID, "", &info)
		return fmt.Sprintf("GET the session: %d %+v", code, info), code == 200 && info.State == "idle"
	})
}

// Sessions the server makes are the workspace's sessions: --sessions lists
// a server-made branch under its parent, and --resume continues it.
func TestServeSessionsResumeFromTheCLI(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	shared := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	ai := fakeai.New(t,
		fakeai.Reply{Content: "first answer"},
		fakeai.Reply{Content: "second answer"},
		fakeai.Reply{Content: "resumed answer"},
	)
	s := startServe(t, dir, ai, shared, "--addr", "127.0.0.1:0")
	id := s.create(t)
	for i, q := range []string{"question one", "question two"} {
		s.message(t, id, q)
		ai.WaitRequests(i+1, 30*time.Second)
		deadline := time.Now().Add(30 * time.Second)
		for {
			var info struct {
				State string
				Turns []struct{ Answer string }
			}
			s.do(t, "GET", "/api/sessions/"+id, "", &info)
			if info.State == "idle" && len(info.Turns) == i+1 && info.Turns[i].Answer != "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("turn %d did not end: %+v", i+1, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	var branch struct{ ID, Parent string }
	if code := s.do(t, "POST", "/api/sessions/"+id+"/fork", `{"turn":1}`, &branch); code != 201 || branch.Parent != id {
		t.Fatalf("fork: %d %+v", code, branch)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(t); code != 0 {
		t.Fatalf("serve exit %d", code)
	}

	r := aci(t, dir, ai, "", shared, "--sessions")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], id) || !strings.HasPrefix(lines[1], "└ "+branch.ID) {
		t.Fatalf("--sessions: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = aci(t, dir, ai, "", shared, "--resume", branch.ID, "-p", "question three")
	if r.code != 0 || !strings.Contains(r.stdout, "resumed answer") {
		t.Fatalf("--resume of the branch: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := ai.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "question one") || strings.Contains(last, "question two") || !strings.Contains(last, "question three") {
		t.Errorf("the resumed branch sent %s", last)
	}
}
