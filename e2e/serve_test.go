package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
)

// served is a running `aci serve`: its process, address and token.
type served struct {
	cmd    *exec.Cmd
	base   string // http://HOST:PORT
	token  string
	stdout *bytes.Buffer // what followed the first line
	stderr *syncBuffer
	done   chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe runs the built binary as `aci serve args...` in dir and reads
// its one stdout line.
func startServe(t *testing.T, dir string, srv *fakeai.Server, env []string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(testbin.Build(t), append([]string{"serve"}, args...)...)
	cmd.Dir = dir
	cmd.Env = baseEnv(t, srv, env...)
	s := &served{cmd: cmd, stdout: &bytes.Buffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.done
	})
	first := make(chan string, 1)
	go func() {
		rd := bufio.NewReader(out)
		line, _ := rd.ReadString('\n')
		first <- line
		io.Copy(s.stdout, rd)
		s.done <- cmd.Wait()
	}()
	var line string
	select {
	case line = <-first:
	case <-time.After(30 * time.Second):
		t.Fatalf("no address line; stderr:\n%s", s.stderr.String())
	}
	rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "aci serve: http://")
	host, token, found := strings.Cut(rest, "/#token=")
	if !ok || !found || token == "" {
		t.Fatalf("first stdout line %q; stderr:\n%s", line, s.stderr.String())
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

// wait waits for the process to exit and returns its exit code.
func (s *served) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(30 * time.Second):
		t.Fatalf("aci serve did not exit; stderr:\n%s", s.stderr.String())
	}
	return -1
}

// SIGTERM with a turn running a command: the turn is cancelled, its
// processes end, the transcript stays, and aci exits 0.
func TestServeSigtermWithTurnRunning(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir, state := t.TempDir(), t.TempDir()
			srv := fakeai.New(t, fakeai.Reply{Content: fakeai.ToolCall(
				call("launcher", "open", map[string]any{"app": "bash"}),
				call("bash_1", "start", map[string]any{"command": "sleep 60.61 & echo $! > bg.pid; wait"}),
				call("bash_1", "run", map[string]any{"command": "echo $$ > fg.pid; sleep 60.62"}),
			)})
			s := startServe(t, dir, srv, []string{"XDG_STATE_HOME=" + state}, "--addr", "127.0.0.1:0")
			var created struct{ ID string }
			if code := s.do(t, "POST", "/api/sessions", `{}`, &created); code != 201 {
				t.Fatalf("create: %d", code)
			}
			if code := s.do(t, "POST", "/api/sessions/"+created.ID+"/messages", `{"text":"RUNNING-QUESTION"}`, nil); code != 202 {
				t.Fatalf("ask: %d", code)
			}
			waitPIDs(t, filepath.Join(dir, "bg.pid"), filepath.Join(dir, "fg.pid"))
			s.cmd.Process.Signal(sig)
			if code := s.wait(t); code != 0 {
				t.Errorf("exit %d, want 0; stderr:\n%s", code, s.stderr.String())
			}
			// The pids the commands wrote are their pid namespaces' when
			// they run contained: their processes are found by command line.
			// A pid namespace may take a moment to be torn down.
			deadline := time.Now().Add(5 * time.Second)
			for len(sleepers("sleep 60.6")) > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			for _, pid := range sleepers("sleep 60.6") {
				cmd, _ := os.ReadFile("/proc/" + pid + "/cmdline")
				t.Errorf("process %s (%q) survived aci serve", pid, cmd)
				if n, err := strconv.Atoi(pid); err == nil {
					syscall.Kill(n, syscall.SIGKILL)
				}
			}
			if s.stdout.Len() != 0 {
				t.Errorf("more than one line on stdout: %q", s.stdout.String())
			}
			data, err := os.ReadFile(filepath.Join(state, "aci", "sessions", created.ID+".jsonl"))
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
				call("launcher", "open", map[string]any{"app": "file", "target": "notes.txt"}),
				call("launcher", "open", map[string]any{"app": "bash"}),
				call("bash_1", "run", map[string]any{"command": "wc -l notes.txt"}),
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
	var created struct{ ID string }
	s.do(t, "POST", "/api/sessions", `{}`, &created)
	s.do(t, "POST", "/api/sessions/"+created.ID+"/messages", `{"text":"what do the notes say?"}`, nil)
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
