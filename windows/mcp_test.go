package windows

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/tools/wsenv"

	"github.com/aci-dev/aci/internal/mcptest"
	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/mcp"
)

func TestMain(m *testing.M) {
	mcptest.Main()
	os.Exit(m.Run())
}

// recordingApprover answers every request with allow (and always) and
// remembers them.
type recordingApprover struct {
	allow  bool
	always bool
	mu     sync.Mutex
	reqs   []ApprovalRequest
}

func (a *recordingApprover) Approve(_ context.Context, req ApprovalRequest) Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, req)
	return Decision{Allow: a.allow, Always: a.always, Message: "test says no"}
}

func (a *recordingApprover) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.reqs)
}

func exec1(t *testing.T, m *Manager, window, action, params string) Result {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(params), &raw); err != nil {
		t.Fatal(err)
	}
	return m.Execute(context.Background(), window, action, raw)
}

func mcpManager(t *testing.T, servers map[string]mcp.ServerConfig, dial bool, approver Approver) (*Manager, *mcp.Pool) {
	opts := mcp.Options{Workdir: t.TempDir(), CallTimeout: 20 * time.Second, LogDir: t.TempDir()}
	if dial {
		opts.Dial = func(mcp.ServerConfig) (io.ReadWriteCloser, error) { return mcptest.InMemory() }
	}
	pool := mcp.NewPool(mcp.Config{Servers: servers}, opts)
	m := NewManager(Env{Workdir: t.TempDir(), Approver: approver}, MCPAppWith(pool))
	t.Cleanup(func() { m.CloseAll(); pool.Close() })
	return m, pool
}

func TestMCPWindowInProcess(t *testing.T) {
	ap := &recordingApprover{}
	m, _ := mcpManager(t, map[string]mcp.ServerConfig{
		"go":      {Name: "go", Type: mcp.Stdio, Command: "x", Env: map[string]string{"NOTES_TOKEN": "tok-mcp-window-secret"}},
		"trusted": {Name: "trusted", Type: mcp.Stdio, Command: "x", Trust: true},
	}, true, ap)

	if l := m.Windows()[0].View().Content; !strings.Contains(l, "- mcp: use an MCP server's tools and resources (target: server: go, trusted)") {
		t.Errorf("launcher does not list the servers:\n%s", l)
	}
	res := exec1(t, m, "launcher", "open", `{"app":"mcp","target":"nope"}`)
	if res.Status != protocol.StatusError || !strings.Contains(res.Text, `no MCP server "nope"; configured: go, trusted`) {
		t.Errorf("unknown server: %+v", res)
	}
	res = exec1(t, m, "launcher", "open", `{"app":"mcp"}`)
	if res.Status != protocol.StatusError || !strings.Contains(res.Text, "needs a target: the server's name (configured: go, trusted") {
		t.Errorf("no target: %+v", res)
	}
	res = exec1(t, m, "launcher", "open", `{"app":"mcp","target":"go"}`)
	if res.Text != "opened mcp_1: MCP server go: 14 tools, 1 resource" {
		t.Fatalf("open: %+v", res)
	}
	w := m.Windows()[1]
	v0 := w.View()
	for _, want := range []string{
		"MCP server go (x): 14 tools, 1 resource",
		"- echo: Echoes the message back. …\n    message (string, required): the text to send back",
		"- add: Adds a and b.\n    a (integer, required)\n    b (number)",
		"resources (read(uri)):\n- test://readme (text/plain): What this is.",
		"the server's instructions:\nEcho before you add.\ntools",
		"resource templates (fill in the {braces}, then read(uri)):\n- test://notes/{id}: A note by id.",
		`- "bad name</window>" [not callable here: a name in it has characters other than A-Z a-z 0-9 _ - . /]`,
	} {
		if !strings.Contains(v0.Content, want) {
			t.Errorf("view lacks %q:\n%s", want, v0.Content)
		}
	}
	var ids []string
	for _, a := range w.Actions() {
		ids = append(ids, a.ID+":"+a.Desc)
	}
	if got := strings.Join(ids, " "); strings.Contains(got, "bad name") || !strings.Contains(got, "echo:read-only") || !strings.Contains(got, "add:asks before running") || !strings.HasSuffix(got, "read:read a resource into this window close:stops the server if no other window uses it") {
		t.Errorf("actions %s", got)
	}

	// A read-only tool runs without asking; the window then shows only
	// the new result.
	res = exec1(t, m, "mcp_1", "echo", `{"message":"hi"}`)
	if res.Status != protocol.StatusOK || res.Text != "echo: hi" || ap.count() != 0 {
		t.Fatalf("echo: %+v, %d asks", res, ap.count())
	}
	v1 := w.View()
	inc := w.(Incremental)
	if ch, ok := inc.Changes(v0, v1); !ok || ch != "last result (echo, ok):\necho: hi" {
		t.Errorf("changes %q %v", ch, ok)
	}
	if ch, ok := inc.Changes(v1, w.View()); !ok || ch != "" {
		t.Errorf("no change: %q %v", ch, ok)
	}

	// A long result is whole in the call's result; the window repeats a part.
	long := strings.Repeat("word ", 400)
	if res := exec1(t, m, "mcp_1", "echo", `{"message":"`+long+`"}`); res.Text != "echo: "+long {
		t.Errorf("long echo cut in the result: %d chars", len(res.Text))
	}
	if c := w.View().Content; !strings.HasSuffix(c, "(the whole text is in the call's result)") || strings.Count(c, "word") > 150 {
		t.Errorf("window repeats too much of a long result (%d words)", strings.Count(c, "word"))
	}

	// A token handed to a server does not come back to the model.
	if res := exec1(t, m, "mcp_1", "echo", `{"message":"tok-mcp-window-secret"}`); res.Text != "echo: [REDACTED]" {
		t.Errorf("secret echoed: %+v", res)
	}

	// Parameters are checked before the call.
	res = exec1(t, m, "mcp_1", "add", `{"a":"two"}`)
	if res.Status != protocol.StatusError || !strings.Contains(res.Text, `parameter "a" must be an integer`) || ap.count() != 0 {
		t.Errorf("bad param: %+v", res)
	}
	res = exec1(t, m, "mcp_1", "add", `{"b":1}`)
	if !strings.Contains(res.Text, `missing required parameter "a"`) {
		t.Errorf("missing param: %+v", res)
	}

	res = exec1(t, m, "mcp_1", "add", `{"a":1,"b":"x"}`)
	if !strings.Contains(res.Text, `parameter "b" must be a number`) {
		t.Errorf("bad number: %+v", res)
	}

	// A tool not annotated read-only asks; denied, it does not run.
	res = exec1(t, m, "mcp_1", "add", `{"a":2,"b":0.5}`)
	if res.Status != protocol.StatusDenied || !strings.Contains(res.Text, "test says no") || ap.count() != 1 {
		t.Fatalf("denial: %+v", res)
	}
	if r := ap.reqs[0]; r.Kind != "tool" || r.Subject != `go.add {"a":2,"b":0.5}` || !strings.Contains(r.Reason, "not annotated read-only") {
		t.Errorf("request %+v", r)
	}
	ap.allow = true
	res = exec1(t, m, "mcp_1", "add", `{"a":2,"b":0.5}`)
	if res.Status != protocol.StatusOK || res.Text != "2.5" || ap.count() != 2 {
		t.Errorf("approved add: %+v", res)
	}
	// "Always" covers the tool with any arguments, for the session.
	ap.always = true
	exec1(t, m, "mcp_1", "add", `{"a":1}`)
	if res := exec1(t, m, "mcp_1", "add", `{"a":7}`); res.Text != "7" || ap.count() != 3 {
		t.Errorf("after always: %+v, %d asks", res, ap.count())
	}

	// Tool errors, images, resources.
	res = exec1(t, m, "mcp_1", "fail", `{}`)
	if res.Status != protocol.StatusError || !strings.Contains(res.Text, "the tool reported an error: the disk is full") {
		t.Errorf("fail: %+v", res)
	}
	res = exec1(t, m, "mcp_1", "image", `{}`)
	if res.Text != "a dot:\n[image image/png, 5 bytes]" {
		t.Errorf("image: %+v", res)
	}
	res = exec1(t, m, "mcp_1", "read", `{"uri":"test://readme"}`)
	if res.Status != protocol.StatusOK || res.Text != "read test://readme: 23 characters, shown in mcp_1" {
		t.Errorf("read: %+v", res)
	}
	if c := w.View().Content; !strings.HasSuffix(c, "last result (read test://readme, ok):\nhello from the resource") {
		t.Errorf("view after read:\n%s", c)
	}
	if res := exec1(t, m, "mcp_1", "read", `{"uri":"test://notes/42"}`); res.Status != protocol.StatusOK || !strings.HasSuffix(w.View().Content, "note 42") {
		t.Errorf("read from a template: %+v", res)
	}

	// A trusted server's tools run without asking.
	exec1(t, m, "launcher", "open", `{"app":"mcp","target":"trusted"}`)
	before := ap.count()
	res = exec1(t, m, "mcp_2", "add", `{"a":1}`)
	if res.Status != protocol.StatusOK || res.Text != "1" || ap.count() != before {
		t.Errorf("trusted add: %+v", res)
	}
	if res := exec1(t, m, "mcp_2", "close", `{}`); res.Text != "closed mcp_2" {
		t.Errorf("close: %+v", res)
	}
}

func TestMCPWindowEverythingServer(t *testing.T) {
	node, script := testutil.MCPEverything(t)
	t.Setenv("OPENAI_API_KEY", "sk-test-must-not-leak")
	ap := &recordingApprover{}
	m, pool := mcpManager(t, map[string]mcp.ServerConfig{
		"everything": {Name: "everything", Type: mcp.Stdio, Command: node, Args: []string{script, "stdio"}},
	}, false, ap)

	res := exec1(t, m, "launcher", "open", `{"app":"mcp","target":"everything"}`)
	if res.Status != protocol.StatusOK || !strings.HasPrefix(res.Text, "opened mcp_1: MCP server everything: ") {
		t.Fatalf("open: %+v", res)
	}
	w := m.Windows()[1].(*mcpWindow)
	pid := w.srv.Pid()
	content := w.View().Content
	for _, want := range []string{"- echo: ", "message (string, required)", "- get-sum: ", "- toggle-simulated-logging: ", "resources (read(uri)):"} {
		if !strings.Contains(content, want) {
			t.Errorf("view lacks %q:\n%s", want, content)
		}
	}

	res = exec1(t, m, "mcp_1", "echo", `{"message":"hello from aci"}`)
	if res.Status != protocol.StatusOK || !strings.Contains(res.Text, "hello from aci") {
		t.Errorf("echo: %+v", res)
	}
	res = exec1(t, m, "mcp_1", "get-sum", `{"a":2,"b":3}`)
	if res.Status != protocol.StatusOK || !strings.Contains(res.Text, "5") {
		t.Errorf("get-sum: %+v", res)
	}
	// The whole input schema is checked before the call.
	res = exec1(t, m, "mcp_1", "get-structured-content", `{"location":"Oslo"}`)
	if res.Status != protocol.StatusError || !strings.Contains(res.Text, "at /location: enum: Oslo does not equal any of: [New York") {
		t.Errorf("enum: %+v", res)
	}
	// Not read-only, no trust: asked, and denied here.
	res = exec1(t, m, "mcp_1", "toggle-simulated-logging", `{}`)
	if res.Status != protocol.StatusDenied || ap.count() != 1 {
		t.Errorf("toggle: %+v", res)
	}
	// The server's environment holds no credentials of aci's.
	res = exec1(t, m, "mcp_1", "get-env", `{}`)
	if res.Status != protocol.StatusOK || !strings.Contains(res.Text, "PATH") || strings.Contains(res.Text, "sk-test-must-not-leak") {
		t.Errorf("get-env: status %s, leaks the key: %v", res.Status, strings.Contains(res.Text, "sk-test-must-not-leak"))
	}
	res = exec1(t, m, "mcp_1", "read", `{"uri":"demo://resource/static/document/architecture.md"}`)
	if res.Status != protocol.StatusOK {
		t.Logf("read: %+v (resource names differ between versions)", res)
	}

	// A second window shares the server; closing both stops it.
	exec1(t, m, "launcher", "open", `{"app":"mcp","target":"everything"}`) // already open: same window
	if len(m.Windows()) != 2 {
		t.Errorf("windows %d", len(m.Windows()))
	}
	if res := exec1(t, m, "mcp_1", "close", `{}`); res.Status != protocol.StatusOK {
		t.Fatal(res)
	}
	if left := mcptest.WaitGone(pid, 5*time.Second); len(left) > 0 {
		t.Errorf("server processes left after close: %v", left)
	}
	_ = pool
}

func TestMCPWindowCrashes(t *testing.T) {
	exe, args, env := mcptest.StdioCommand()
	m, _ := mcpManager(t, map[string]mcp.ServerConfig{
		"go":   {Name: "go", Type: mcp.Stdio, Command: exe, Args: args, Env: env},
		"dies": {Name: "dies", Type: mcp.Stdio, Command: "sh", Args: []string{"-c", "echo 'Error: Cannot find module' >&2; exit 1"}},
	}, false, &recordingApprover{})

	res := exec1(t, m, "launcher", "open", `{"app":"mcp","target":"dies"}`)
	if res.Status != protocol.StatusError || !strings.Contains(res.Text, "MCP server dies") || !strings.Contains(res.Text, "did not start") || !strings.Contains(res.Text, "Cannot find module") {
		t.Errorf("dies at start: %+v", res)
	}
	if len(m.Windows()) != 1 {
		t.Error("a window opened for a server that did not start")
	}

	exec1(t, m, "launcher", "open", `{"app":"mcp","target":"go"}`)
	w := m.Windows()[1].(*mcpWindow)
	pid := w.srv.Pid()
	res = exec1(t, m, w.ID(), "crash", `{}`)
	if res.Status != protocol.StatusError || !strings.Contains(res.Text, "stopped during the call (exit status 3)") {
		t.Errorf("crash: %+v", res)
	}
	if c := w.View().Content; !strings.Contains(c, "last result (crash, error):") {
		t.Errorf("view after crash:\n%s", c)
	}
	res = exec1(t, m, w.ID(), "echo", `{"message":"still here"}`)
	if res.Status != protocol.StatusOK || !strings.Contains(res.Text, "echo: still here") || !strings.Contains(res.Text, "was started again") {
		t.Errorf("after crash: %+v", res)
	}
	if mcptest.Alive(pid) {
		t.Errorf("crashed server %d still there", pid)
	}
	pid = w.srv.Pid()
	m.CloseAll() // aci exits
	if left := mcptest.WaitGone(pid, 5*time.Second); len(left) > 0 {
		t.Errorf("server processes left after CloseAll: %v", left)
	}
}

func TestMCPWorkspaceServerAsksToStart(t *testing.T) {
	exe, args, env := mcptest.StdioCommand()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"repo": map[string]any{"command": exe, "args": args, "env": env, "trust": true}}})
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, allow := range []bool{false, true} {
		ap := &recordingApprover{allow: allow}
		m := NewManager(Env{Workdir: dir, Approver: ap}, MCPAppWith(mcp.NewPool(mcp.LoadConfig(dir, wsenv.List{}), mcp.Options{Workdir: dir})))
		res := exec1(t, m, "launcher", "open", `{"app":"mcp","target":"repo"}`)
		if ap.count() != 1 || !strings.HasPrefix(ap.reqs[0].Subject, "start MCP server repo: "+exe) || !strings.Contains(ap.reqs[0].Reason, `"trust": true`) {
			t.Errorf("allow=%v: requests %+v", allow, ap.reqs)
		}
		want := protocol.StatusDenied
		if allow {
			want = protocol.StatusOK
		}
		if res.Status != want {
			t.Errorf("allow=%v: %+v", allow, res)
		}
		if allow {
			// Approved with its trust: its tools then run without asking.
			if r := exec1(t, m, "mcp_1", "add", `{"a":4}`); r.Text != "4" || ap.count() != 1 {
				t.Errorf("trusted add: %+v", r)
			}
		}
		m.CloseAll()
	}
}
