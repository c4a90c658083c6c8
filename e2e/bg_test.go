package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
	"github.com/aci-dev/aci/internal/testutil"
)

// Background sessions and worktrees on the real binary: the background
// server is a real detached process reaching the scripted model.

// bgHome is a fresh home whose background servers are ended when the test
// ends (a server stops by itself when idle; the test does not wait).
func bgHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Cleanup(func() {
		files, _ := filepath.Glob(filepath.Join(home, "state", "aci", "bg", "*", "server.json"))
		for _, f := range files {
			var s bgServer
			if data, err := os.ReadFile(f); err == nil && json.Unmarshal(data, &s) == nil && s.PID > 0 {
				syscall.Kill(s.PID, syscall.SIGTERM)
				for i := 0; i < 100 && syscall.Kill(s.PID, 0) == nil; i++ {
					time.Sleep(50 * time.Millisecond)
				}
			}
		}
	})
	return home
}

// bgRun runs aci with home as HOME, against srv (nil: no model).
func bgRun(t *testing.T, dir, home string, srv *fakeai.Server, stdin string, args ...string) runResult {
	t.Helper()
	return bgRunEnv(t, dir, home, srv, nil, args...)
}

// bgRunEnv is bgRun with more environment, and no stdin.
func bgRunEnv(t *testing.T, dir, home string, srv *fakeai.Server, extra []string, args ...string) runResult {
	t.Helper()
	url := "http://127.0.0.1:1/v1"
	if srv != nil {
		url = srv.URL
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"OPENAI_API_KEY=" + testKey, "OPENAI_MODEL=test-model", "OPENAI_BASE_URL=" + url, "ACI_BG_IDLE_S=60",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	return aciEnv(t, dir, append(env, extra...), "", args...)
}

var bgID = regexp.MustCompile(`(?m)^(\d{8}-\d{6}-[0-9a-f]{8})$`)

// waitLogs polls aci logs ID until it holds want.
func waitLogs(t *testing.T, dir, home, id, want string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := bgRun(t, dir, home, nil, "", "logs", id)
		if strings.Contains(r.stdout, want) {
			return r.stdout
		}
		if time.Now().After(deadline) {
			t.Fatalf("aci logs %s never showed %q: exit %d\n%s\n%s", id, want, r.code, r.stdout, r.stderr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// newTmux runs argv in a fresh tmux server in dir, env its environment.
func newTmux(t *testing.T, dir string, env []string, argv ...string) *tmuxPane {
	t.Helper()
	return &tmuxPane{testutil.StartTmux(t, dir, 160, 50, env, argv)}
}

// tmuxPane is a pane of the e2e tests: waits are of 30 s.
type tmuxPane struct{ *testutil.Tmux }

func (p *tmuxPane) run(args ...string) string { return p.Run(args...) }

func (p *tmuxPane) waitFor(what string, ok func(string) bool) string {
	return p.WaitUntil(what, 30*time.Second, ok)
}

func tmuxEnv(home string, srv *fakeai.Server) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"TERM=xterm-256color", "LANG=C.UTF-8", "NO_COLOR=1",
		"OPENAI_API_KEY=" + testKey, "OPENAI_MODEL=test-model", "OPENAI_BASE_URL=" + srv.URL, "ACI_BG_IDLE_S=60"}
}

// TestBgSurvivesItsTerminal: aci --bg in a tmux pane prints an id; the
// tmux server is killed while the model still thinks; the session goes on
// and its transcript gets the answer; aci ps lists it finished, with its
// last words.
func TestBgSurvivesItsTerminal(t *testing.T) {
	dir, home := t.TempDir(), bgHome(t)
	srv := fakeai.New(t, fakeai.Reply{Content: "the answer is 42", Delay: 3 * time.Second})
	bin := testbin.Build(t)
	p := newTmux(t, dir, tmuxEnv(home, srv), "sh", "-c", bin+" --bg 'what is the answer'; sleep 600")
	scr := p.waitFor("an id", func(s string) bool { return bgID.MatchString(s) })
	id := bgID.FindStringSubmatch(scr)[1]
	p.run("kill-server") // the terminal goes, and everything in it
	if r := bgRun(t, dir, home, nil, "", "ps"); !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "running") {
		t.Errorf("ps while it runs: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	out := waitLogs(t, dir, home, id, "the answer is 42")
	if !strings.Contains(out, "› what is the answer") {
		t.Errorf("logs lack the question:\n%s", out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := bgRun(t, dir, home, nil, "", "ps")
		row := ""
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(l, id) {
				row = l
			}
		}
		if strings.Contains(row, "finished") && strings.Contains(row, "the answer is 42") && strings.Contains(row, "$") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ps row %q\n%s", row, r.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The server's files are the person's only.
	files, _ := filepath.Glob(filepath.Join(home, "state", "aci", "bg", "*", "server.*"))
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v %v, want 0600", f, fi.Mode().Perm(), err)
		}
	}
	if len(files) != 2 {
		t.Errorf("server files %v", files)
	}
	// The log holds no token: server.json alone does.
	var s bgServer
	if js, _ := filepath.Glob(filepath.Join(home, "state", "aci", "bg", "*", "server.json")); len(js) == 1 {
		data, _ := os.ReadFile(js[0])
		json.Unmarshal(data, &s)
	}
	logs, _ := filepath.Glob(filepath.Join(home, "state", "aci", "bg", "*", "server.log"))
	if s.Token == "" || len(logs) != 1 {
		t.Fatalf("server.json %+v, logs %v", s, logs)
	}
	if data, _ := os.ReadFile(logs[0]); strings.Contains(string(data), s.Token) || strings.Contains(string(data), testKey) {
		t.Errorf("the server's log holds its token or the key:\n%s", data)
	}
	// attach to a finished session: its past, and that it has finished.
	a := newTmux(t, dir, tmuxEnv(home, srv), bin, "attach", id)
	a.waitFor("the finished session", func(s string) bool {
		return strings.Contains(s, "the answer is 42") && strings.Contains(s, "this session has finished")
	})
}

// TestBgAttachAnswersAQuestion: a background session asks before rm -rf;
// aci attach in tmux shows the question, y answers it, the answer shows;
// a second --bg reuses the same server.
func TestBgAttachAnswersAQuestion(t *testing.T) {
	dir, home := t.TempDir(), bgHome(t)
	os.MkdirAll(filepath.Join(dir, "build", "x"), 0o755)
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Cleaning.\n" + fakeai.ToolCall(openBash,
			bashRun("rm -rf build"))},
		fakeai.Reply{Content: "removed the build folder"},
		fakeai.Reply{Content: "second one done"})
	notes := filepath.Join(t.TempDir(), "notes")
	r := bgRunEnv(t, dir, home, srv, []string{"ACI_NOTIFY=cat >> " + notes}, "--bg", "clean up", "--permission-mode", "ask")
	if r.code != 0 || !bgID.MatchString(r.stdout) {
		t.Fatalf("--bg: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	deadline := time.Now().Add(20 * time.Second)
	for {
		ps := bgRun(t, dir, home, nil, "", "ps")
		if strings.Contains(ps.stdout, "waiting") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never waiting:\n%s\n%s", ps.stdout, ps.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The question notified the person's program (no terminal to ring).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		got, _ := os.ReadFile(notes)
		if strings.Contains(string(got), `"event":"approval"`) && strings.Contains(string(got), id) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ACI_NOTIFY got %q", got)
		}
	}
	p := newTmux(t, dir, tmuxEnv(home, srv), testbin.Build(t), "attach", id)
	p.waitFor("the question", func(s string) bool { return strings.Contains(s, "allow? [y]es") })
	if _, err := os.Stat(filepath.Join(dir, "build")); err != nil {
		t.Fatal("build went before the answer")
	}
	p.run("send-keys", "-t", "aci", "y", "Enter")
	p.waitFor("the answer", func(s string) bool { return strings.Contains(s, "removed the build folder") })
	if _, err := os.Stat(filepath.Join(dir, "build")); !os.IsNotExist(err) {
		t.Errorf("build still there: %v", err)
	}
	p.run("send-keys", "-t", "aci", "/exit", "Enter")
	p.waitFor("detached", func(s string) bool { return strings.Contains(s, "detached") })

	servers, _ := filepath.Glob(filepath.Join(home, "state", "aci", "bg", "*", "server.json"))
	before, _ := os.ReadFile(servers[0])
	r2 := bgRun(t, dir, home, srv, "", "--bg", "another")
	if r2.code != 0 {
		t.Fatalf("second --bg: %s", r2.stderr)
	}
	after, _ := os.ReadFile(servers[0])
	if string(before) != string(after) {
		t.Errorf("the second --bg started another server")
	}
	waitLogs(t, dir, home, strings.TrimSpace(r2.stdout), "second one done")
}

// TestBgBadInput: an unknown id is exit 2 with a clear message for attach
// and logs; --worktree outside a git repository is exit 2.
func TestBgBadInput(t *testing.T) {
	dir, home := t.TempDir(), bgHome(t)
	for _, args := range [][]string{{"attach", "20200101-000000-deadbeef"}, {"logs", "20200101-000000-deadbeef"}, {"worktree", "merge", "nope"}} {
		r := bgRun(t, dir, home, nil, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "aci ps lists them") && !strings.Contains(r.stderr, "git repository") {
			t.Errorf("%v: exit %d %q", args, r.code, r.stderr)
		}
	}
	for _, args := range [][]string{{"--worktree", "-p", "hi"}, {"--bg", "task", "--worktree", "x"}} {
		r := bgRun(t, dir, home, nil, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "needs a git repository") {
			t.Errorf("%v: exit %d %q", args, r.code, r.stderr)
		}
	}
	if r := bgRun(t, dir, home, nil, "", "ps"); r.code != 0 || !strings.Contains(r.stderr, "no background sessions") {
		t.Errorf("empty ps: %d %q", r.code, r.stderr)
	}
}

// TestBgServerStopsWhenIdle: with nothing to do for ACI_BG_IDLE_S, the
// background server ends and removes its server.json; its session is
// still listed, and attach starts a server again to show it.
func TestBgServerStopsWhenIdle(t *testing.T) {
	dir, home := t.TempDir(), bgHome(t)
	srv := fakeai.New(t, fakeai.Reply{Content: "quick answer"})
	r := bgRunEnv(t, dir, home, srv, []string{"ACI_BG_IDLE_S=1"}, "--bg", "be quick")
	if r.code != 0 {
		t.Fatalf("--bg: %s", r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(home, "state", "aci", "bg", "*", "server.json"))
	if len(files) != 1 {
		t.Fatalf("server.json: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	var s bgServer
	json.Unmarshal(data, &s)
	for deadline := time.Now().Add(20 * time.Second); syscall.Kill(s.PID, 0) == nil; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the idle server is still running")
		}
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Errorf("server.json left behind: %v", err)
	}
	ps := bgRun(t, dir, home, nil, "", "ps")
	if !strings.Contains(ps.stdout, "finished") || !strings.Contains(ps.stdout, "quick answer") {
		t.Errorf("ps after the server stopped:\n%s", ps.stdout)
	}
}
