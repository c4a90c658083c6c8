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

// TestACPLoadReplaysTypedWords: the official SDK's client runs a question
// in plan mode, "/fix-issue 9 low" and "/init", each in a session of its
// own; loaded in another connection, each replays its question as typed
// (testdata/typed_client.mjs checks), while the model got aci's additions.
func TestACPLoadReplaysTypedWords(t *testing.T) {
	node, sdk := acpSDK(t)
	dir, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".aci", "commands"), 0o755)
	os.WriteFile(filepath.Join(dir, ".aci", "commands", "fix-issue.md"), []byte("---\ndescription: fix an issue\n---\nFix issue #$1 ($ARGUMENTS) with care."), 0o644)
	srv := fakeai.New(t, fakeai.Reply{Content: "Plan: 1. read calc"}, fakeai.Reply{Content: "Fixed."}, fakeai.Reply{Content: "Wrote it."})
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "testdata", "typed_client.mjs")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, sdk, testbin.Build(t), dir)
	cmd.Dir = dir
	cmd.Env = append(testutil.ChildEnv(home, srv.URL, testKey), "NODE_NO_WARNINGS=1")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[0].LastUser(), "[aci: permission mode plan") ||
		!strings.Contains(reqs[1].LastUser(), "Fix issue #9 (9 low) with care.") || !strings.Contains(reqs[2].LastUser(), "Study this project") {
		t.Fatalf("the model did not get aci's additions: %+v", reqs)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}
