package acp_test

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

// TestACPOfficialClientCommands: the official SDK's client is offered the
// workspace's commands and runs one.
func TestACPOfficialClientCommands(t *testing.T) {
	node, sdk := acpSDK(t)
	dir, home := t.TempDir(), t.TempDir()
	testfs.Write(t, dir, 0o644, map[string]string{
		".aci/commands/fix-issue.md":     "---\ndescription: fix an issue\nargument-hint: [number]\n---\nFix issue #$1 please.",
		".claude/commands/git/commit.md": "Commit: $ARGUMENTS",
	})
	srv := fakeai.New(t, fakeai.Reply{Content: "Fixed."})
	out := runNodeClient(t, node, sdk, "commands_client.mjs", dir, home, srv)
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.HasPrefix(reqs[0].LastUser(), "Fix issue #7 please.") {
		t.Errorf("the model got %+v", reqs)
	}
	t.Logf("%s", strings.TrimSpace(out))
}

// TestACPLoadReplaysTypedWords: the official SDK's client runs a question
// in plan mode, "/fix-issue 9 low" and "/init", each in a session of its
// own; loaded in another connection, each replays its question as typed
// (testdata/typed_client.mjs checks), while the model got aci's additions.
func TestACPLoadReplaysTypedWords(t *testing.T) {
	node, sdk := acpSDK(t)
	dir, home := t.TempDir(), t.TempDir()
	testfs.Write(t, dir, 0o644, map[string]string{".aci/commands/fix-issue.md": "---\ndescription: fix an issue\n---\nFix issue #$1 ($ARGUMENTS) with care."})
	srv := fakeai.New(t, fakeai.Reply{Content: "Plan: 1. read calc"}, fakeai.Reply{Content: "Fixed."}, fakeai.Reply{Content: "Wrote it."})
	out := runNodeClient(t, node, sdk, "typed_client.mjs", dir, home, srv)
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[0].LastUser(), "[aci: permission mode plan") ||
		!strings.Contains(reqs[1].LastUser(), "Fix issue #9 (9 low) with care.") || !strings.Contains(reqs[2].LastUser(), "Study this project") {
		t.Fatalf("the model did not get aci's additions: %+v", reqs)
	}
	t.Logf("%s", strings.TrimSpace(out))
}
