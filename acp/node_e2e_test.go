package acp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
	"github.com/aci-dev/aci/internal/testutil"
)

// sdkVersion is the @agentclientprotocol/sdk that .ci/run installs.
const sdkVersion = "2.4.0"

// acpSDK finds node and the folder where .ci/run installed the official
// TypeScript ACP SDK (ACI_ACP_SDK, or ~/.cache/aci-ci/acp).
func acpSDK(t *testing.T) (node, dir string) {
	t.Helper()
	return testutil.NPMPackage(t, "ACI_ACP_SDK", "acp", "@agentclientprotocol/sdk@"+sdkVersion, "node_modules/@agentclientprotocol/sdk/package.json")
}

// runNodeClient runs testdata/SCRIPT with node (the official SDK in sdk,
// the aci binary, dir: its arguments) in dir, with home and the fake model
// srv, and returns its output; the test fails if it fails or takes more
// than two minutes.
func runNodeClient(t *testing.T, node, sdk, script, dir, home string, srv *fakeai.Server) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(filepath.Dir(file), "testdata", script), sdk, testbin.Build(t), dir)
	cmd.Dir = dir
	cmd.Env = append(testutil.ChildEnv(home, srv.URL, testKey), "NODE_NO_WARNINGS=1")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within two minutes:\n%s", script, out)
	}
	if err != nil {
		t.Fatalf("%s failed: %v\n%s", script, err, out)
	}
	return string(out)
}

// A client no one here wrote — the official SDK's — drives aci through a
// prompt that reads a file (the editor's unsaved buffer), edits it
// (through the editor) and runs a command that needs permission; the
// script checks what it received and fails on any surprise.
func TestACPOfficialClient(t *testing.T) {
	node, sdk := acpSDK(t)
	dir, home := t.TempDir(), t.TempDir()
	calc := filepath.Join(dir, "calc.go")
	onDisk := "package calc\n\nfunc Add(a, b int) int { return a - b }\n"
	os.WriteFile(calc, []byte(onDisk), 0o644)
	scratch := filepath.Join(home, "scratch")
	os.MkdirAll(scratch, 0o755)
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Looking.\n" + fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": "calc.go"}))},
		fakeai.Reply{Content: fakeai.ToolCall(
			call("file_1", "edit", map[string]any{"old_text": "a - b", "new_text": "a + b"}),
			openBash,
			// uncontained: the test's home lies under /tmp, which contained
			// commands see as their session's own.
			call("bash_1", "run", map[string]any{"command": "rm -rf ~/scratch && echo removed-ok && for i in 1 2 3; do echo tick-$i; sleep 1; done", "uncontained": true}),
		)},
		fakeai.Reply{Content: "Fixed and checked."},
	)
	out := runNodeClient(t, node, sdk, "client.mjs", dir, home, srv)
	if strings.Contains(out, testKey) {
		t.Errorf("the API key reached the client")
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	all := ""
	for _, m := range reqs[1].Messages {
		all += m.Content
	}
	if !strings.Contains(all, "UNSAVED-EDITOR-TEXT") {
		t.Errorf("the model did not see the editor's unsaved buffer")
	}
	if b, _ := os.ReadFile(calc); string(b) != onDisk {
		t.Errorf("calc.go on disk changed (the edit should go to the editor): %q", b)
	}
	if _, err := os.Stat(scratch); err == nil {
		t.Errorf("the allowed command did not run")
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}
