package acp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
	"github.com/aci-dev/aci/internal/testutil"
)

// TestACPOfficialClientCommands: the official SDK's client is offered the
// workspace's commands and runs one.
func TestACPOfficialClientCommands(t *testing.T) {
	node, sdk := testutil.NPMPackage(t, "ACI_ACP_SDK", "acp", "@agentclientprotocol/sdk@"+sdkVersion, "node_modules/@agentclientprotocol/sdk/package.json")
	dir, home := t.TempDir(), t.TempDir()
	for rel, text := range map[string]string{
		".aci/commands/fix-issue.md":     "---\ndescription: fix an issue\nargument-hint: [number]\n---\nFix issue #$1 please.",
		".claude/commands/git/commit.md": "Commit: $ARGUMENTS",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644)
	}
	srv := fakeai.New(t, fakeai.Reply{Content: "Fixed."})
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "testdata", "commands_client.mjs")
	cmd := exec.Command(node, script, sdk, testbin.Build(t), dir)
	cmd.Dir = dir
	cmd.Env = append(testutil.ChildEnv(home, srv.URL, testKey), "NODE_NO_WARNINGS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s", err, out)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.HasPrefix(reqs[0].LastUser(), "Fix issue #7 please.") {
		t.Errorf("the model got %+v", reqs)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}
