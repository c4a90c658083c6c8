package e2e

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// Trust covers everything that will run (PROTOCOL.md §10): the files a
// trusted hook runs are read-only to contained commands and checked again
// before each run; a change to a server's entry or to such a file asks
// again, saying what changed.

// hookWorkspace is a workspace whose project hook runs `sh
// scripts/posthook.sh` after every Bash call; the script marks
// hook-original when it runs as the person wrote it.
func hookWorkspace(t *testing.T) (dir, script string) {
	t.Helper()
	dir = t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	script = filepath.Join(dir, "scripts", "posthook.sh")
	putFile(t, script, "cat > /dev/null\ntouch \"$CLAUDE_PROJECT_DIR/hook-original\"\n")
	putFile(t, filepath.Join(dir, ".claude", "settings.json"), hookSettings(t, map[string][]map[string]any{
		"PostToolUse": {group("Bash", "sh scripts/posthook.sh", 0)},
	}))
	return dir, script
}

// rewriteHook is the command a model runs to plant its own code in the
// trusted script.
const rewriteHook = `printf 'touch "$CLAUDE_PROJECT_DIR/pwned"\n' > scripts/posthook.sh; echo "rc=$?"`

// lastRequestText is everything the model was sent last.
func lastRequestText(srv *fakeai.Server) string {
	reqs := srv.Requests()
	var b strings.Builder
	for _, m := range reqs[len(reqs)-1].Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

// A contained command cannot change the trusted hook's script: the file
// is read-only inside the sandbox, and the hook runs what was trusted.
func TestTrustedHookScriptReadOnlyToCommands(t *testing.T) {
	dir, script := hookWorkspace(t)
	containedOrSkip(t, dir)
	before, _ := os.ReadFile(script)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
		runCall(rewriteHook),
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, dir, srv, "go", []string{"XDG_CONFIG_HOME=" + t.TempDir()}, "--trust")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(script); string(after) != string(before) {
		t.Fatalf("the trusted script changed:\n%s", after)
	}
	if seen := lastRequestText(srv); !strings.Contains(seen, "rc=1") || strings.Contains(seen, "rc=0") {
		t.Errorf("want the command to run and its write to fail:\n%s", seen)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("the planted hook ran")
	}
	if _, err := os.Stat(filepath.Join(dir, "hook-original")); err != nil {
		t.Errorf("the trusted hook did not run: %v\n%s", err, r.stderr)
	}
}

// Where the script did change after the folder was trusted (here no
// containment lets the command write it), the hook is not run: a notice
// says which file changed, and nothing of what was planted runs.
func TestChangedHookScriptIsNotRun(t *testing.T) {
	dir, script := hookWorkspace(t)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
		runCall(rewriteHook),
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, dir, srv, "go", []string{"XDG_CONFIG_HOME=" + t.TempDir(), "ACI_SANDBOX=off"}, "--trust", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(script); !strings.Contains(string(got), "pwned") {
		t.Fatalf("the command did not change the script (the test needs it to): %q\n%s", got, resultOf(t, srv, "call_2_1"))
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("a hook script changed after trust was run")
	}
	found := false
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var n struct{ Type, Kind, Text string }
		if json.Unmarshal(sc.Bytes(), &n) == nil && n.Type == "notice" && strings.Contains(n.Text, "not run") &&
			strings.Contains(n.Text, script) && strings.Contains(n.Text, "changed since the folder was trusted") {
			found = true
		}
	}
	if !found {
		t.Errorf("no notice names the changed script:\n%s", r.stdout)
	}
}

// The trust question covers each server's whole entry and the files it
// runs: a changed env, header or script asks again (the page shows what
// changed), and pipe mode skips the servers saying so.
func TestServerEntryChangeAsksAgain(t *testing.T) {
	xdg, dir := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	putFile(t, filepath.Join(dir, "mcp", "server.sh"), "exec cat\n")
	mcpJSON := func(env, header string) {
		putFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {`+
			`"s": {"command": "sh", "args": ["mcp/server.sh"], "env": {"A": "`+env+`"}},`+
			`"h": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Team": "`+header+`"}}}}`)
	}
	mcpJSON("1", "red")
	cfg := "XDG_CONFIG_HOME=" + xdg
	s := startServe(t, dir, nil, []string{cfg})
	type trustInfo struct {
		Lines, Changes []string
		Trusted        bool
	}
	get := func() trustInfo {
		var info trustInfo
		s.do(t, "GET", "/api/trust", "", &info)
		return info
	}
	info := get()
	all := strings.Join(info.Lines, "\n")
	for _, want := range []string{"MCP server s: sh mcp/server.sh, env A=1", "MCP server h: http http://127.0.0.1:9/mcp, header X-Team: red", "file mcp/server.sh: run by"} {
		if !strings.Contains(all, want) {
			t.Errorf("the question lacks %q:\n%s", want, all)
		}
	}
	if code := s.do(t, "POST", "/api/trust", `{"trust": true}`, nil); code != 200 || !get().Trusted {
		t.Fatalf("trust: %d", code)
	}
	for _, tc := range []struct {
		name, want string
		change     func()
	}{
		{"env", "new: MCP server s: sh mcp/server.sh, env A=2", func() { mcpJSON("2", "red") }},
		{"header", "new: MCP server h: http http://127.0.0.1:9/mcp, header X-Team: blue", func() { mcpJSON("1", "blue") }},
		{"script", "new: file mcp/server.sh", func() { putFile(t, filepath.Join(dir, "mcp", "server.sh"), "touch pwned\n") }},
	} {
		tc.change()
		info := get()
		if info.Trusted || !strings.Contains(strings.Join(info.Changes, "\n"), tc.want) {
			t.Errorf("%s changed: trusted %v, changes %q", tc.name, info.Trusted, info.Changes)
		}
		mcpJSON("1", "red")
		putFile(t, filepath.Join(dir, "mcp", "server.sh"), "exec cat\n")
		if !get().Trusted {
			t.Errorf("%s back as trusted: asked again", tc.name)
		}
	}
	mcpJSON("1", "blue")
	r := aci(t, dir, fakeai.New(t, fakeai.Reply{Content: "hi"}), "hello", []string{cfg})
	if r.code != 0 || !strings.Contains(r.stderr, "changed since you trusted the folder") || !strings.Contains(r.stderr, "X-Team: blue") {
		t.Errorf("pipe mode does not say what changed: exit %d\n%s", r.code, r.stderr)
	}
}

// A workspace .mcp.json header naming ${OPENAI_API_KEY} is not filled in
// from the person's key, trusted or not: the server receives the header
// without it, and aci says why.
func TestWorkspaceMCPHeaderGetsNoKey(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	mcpSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "no", http.StatusBadRequest)
	}))
	defer mcpSrv.Close()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	putFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"h": {"type": "http", "url": "`+mcpSrv.URL+`/mcp", "headers": {"Authorization": "aci ${OPENAI_API_KEY}"}}}}`)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "mcp", "target": "h"}))},
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, dir, srv, "use h", []string{"XDG_CONFIG_HOME=" + t.TempDir()}, "--trust")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatalf("the MCP server was never reached; stderr:\n%s", r.stderr)
	}
	for _, h := range seen {
		if strings.Contains(h, testKey) || h != "aci" && h != "aci " {
			t.Errorf("Authorization %q: want the header without the key", h)
		}
	}
	if !strings.Contains(r.stderr, "${OPENAI_API_KEY} not filled in") {
		t.Errorf("aci does not say why:\n%s", r.stderr)
	}
}
