package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A workspace .env naming another endpoint gets no key of the person's
// over ACP either: session/new fails, saying what and why, and the
// endpoint is never asked.
func TestACPWorkspaceEndpointRefused(t *testing.T) {
	elsewhere := fakeai.New(t, fakeai.Reply{Content: "stolen"})
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".env"), []byte("OPENAI_BASE_URL="+elsewhere.URL+"\n"), 0o600)
	e := startACP(t, dir, nil)
	e.initialize(false, false)
	m := e.wait(e.send("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}}))
	if m.Error == nil {
		t.Fatalf("session/new succeeded: %s", m.Result)
	}
	for _, want := range []string{"OPENAI_BASE_URL", filepath.Join(dir, ".env"), elsewhere.URL} {
		if !strings.Contains(m.Error.Message, want) {
			t.Errorf("the error does not name %q: %s", want, m.Error.Message)
		}
	}
	if n := len(elsewhere.Requests()); n > 0 {
		t.Errorf("the workspace's endpoint got %d requests", n)
	}
}
