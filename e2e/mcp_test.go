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
	"github.com/aci-dev/aci/internal/testutil"
)

// mcpUserConfig writes a user mcp.json declaring the everything server
// with a marker argument, and returns the env that points aci at it.
func mcpUserConfig(t *testing.T, marker string) []string {
	node, script := testutil.MCPEverything(t)
	cfg := t.TempDir()
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{script, "stdio", marker}},
	}})
	if err := os.MkdirAll(filepath.Join(cfg, "aci"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "aci", "mcp.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"XDG_CONFIG_HOME=" + cfg}
}

func TestE2EMCPServer(t *testing.T) {
	marker := fmt.Sprintf("aci-mcp-e2e-%d", time.Now().UnixNano())
	env := mcpUserConfig(t, marker)
	srv := fakeai.New(t,
		act(call("launcher", "open", map[string]any{"app": "mcp", "target": "everything"})),
		act(
			call("mcp_1", "echo", map[string]any{"message": "hello through MCP"}),
			call("mcp_1", "echo", map[string]any{}),
			call("mcp_1", "toggle-simulated-logging", map[string]any{}),
		),
		fakeai.Reply{Content: "done"},
	)
	state := t.TempDir()
	r := aci(t, t.TempDir(), srv, "use the everything server", append(env, "XDG_STATE_HOME="+state))
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	first := reqs[0].Messages[1].Content
	if !strings.Contains(first, "- mcp: use an MCP server's tools and resources (target: server: everything)") {
		t.Errorf("the launcher does not list the server:\n%s", first)
	}
	second := reqs[1].Last()
	for _, want := range []string{`status="ok">opened mcp_1: MCP server everything: `, `<window id="mcp_1" app="mcp" title="everything">`, "- echo: ", "message (string, required)"} {
		if !strings.Contains(second, want) {
			t.Errorf("second request lacks %q:\n%s", want, second)
		}
	}
	third := reqs[2].Last()
	for _, want := range []string{
		`action_id="echo" status="ok">Echo: hello through MCP</result>`,
		`action_id="echo" status="error">missing required parameter "message"`,
		`action_id="toggle-simulated-logging" status="denied">denied by aci in pipe mode (no terminal to ask): everything.toggle-simulated-logging {}`,
		"pipe mode",
	} {
		if !strings.Contains(third, want) {
			t.Errorf("third request lacks %q:\n%s", want, third)
		}
	}
	if left := testutil.Outlived(5*time.Second, marker); len(left) > 0 {
		t.Errorf("MCP server processes outlived aci: %v", left)
	}
	// Its stderr went to the log, not the screen.
	log, err := os.ReadFile(filepath.Join(state, "aci", "mcp", "everything.log"))
	if err != nil || !strings.Contains(string(log), "=== aci starts everything") {
		t.Errorf("server log: %v\n%s", err, log)
	}
	if strings.Contains(r.stderr, "=== aci starts") || strings.Contains(r.stderr, "Starting") {
		t.Errorf("server stderr reached the screen:\n%s", r.stderr)
	}
}

func TestE2EMCPInterruptedCallLeavesNoServer(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) { interruptMCPCall(t, sig) })
	}
}

// interruptMCPCall signals aci during a long MCP call; even killed
// outright, aci leaves no server behind.
func interruptMCPCall(t *testing.T, sig syscall.Signal) {
	marker := fmt.Sprintf("aci-mcp-e2e-%d", time.Now().UnixNano())
	env := mcpUserConfig(t, marker)
	srv := fakeai.New(t,
		act(
			call("launcher", "open", map[string]any{"app": "mcp", "target": "everything"}),
			call("mcp_1", "trigger-long-running-operation", map[string]any{"duration": 60, "steps": 2}),
		),
		fakeai.Reply{Content: "never reached"},
	)
	run := start(t, t.TempDir(), baseEnv(t, srv, env...), "-p", "run the long operation")
	// Wait for the server to be up and the call under way.
	deadline := time.Now().Add(20 * time.Second)
	for len(testutil.Procs(marker)) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	if len(testutil.Procs(marker)) == 0 {
		t.Fatalf("the server never started; stderr:\n%s", run.stderr)
	}
	run.signal(sig)
	want := map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 128 + 15, syscall.SIGKILL: -1}[sig]
	if code := run.exited(t, 15*time.Second); code != want {
		t.Errorf("exit %d, want %d after %s; stderr:\n%s", code, want, sig, run.stderr)
	}
	if left := testutil.Outlived(5*time.Second, marker); len(left) > 0 {
		t.Errorf("MCP server processes outlived aci: %v", left)
	}
}
