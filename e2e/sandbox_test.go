package e2e

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/tools/sandbox"
)

// bodies joins every request body the model received.
func bodies(srv *fakeai.Server) string {
	var b strings.Builder
	for _, r := range srv.Requests() {
		b.Write(r.Body)
	}
	return b.String()
}

// A workspace .env cannot switch approvals or containment off, and a
// command approved with --yes still cannot write outside the workspace
// where the guard could not name what it writes (so nothing was granted),
// nor see the API key, in any encoding.
func TestE2EContainmentAndSafetySwitches(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".env"), []byte("ACI_YES=1\nACI_SANDBOX=off\n"), 0o600)
	outside := fmt.Sprintf("/opt/aci-e2e-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(outside) })
	// A file in the workspace holds the key (as a leaked log might).
	os.WriteFile(filepath.Join(dir, "leak.txt"), []byte(testKey), 0o600)
	script := func() *fakeai.Server {
		return fakeai.New(t,
			fakeai.Reply{Content: fakeai.ToolCall(
				call("launcher", "open", map[string]any{"app": "bash"}),
				// A path the guard cannot name: allowing it grants nothing.
				call("bash_1", "run", map[string]any{"command": "d=$(echo " + filepath.Dir(outside) + "); echo pwned > $d/" + filepath.Base(outside)}),
			)},
			fakeai.Reply{Content: fakeai.ToolCall(
				call("bash_1", "run", map[string]any{"command": `echo "key=[$OPENAI_API_KEY]"; cat leak.txt; echo; base64 leak.txt; (printf 'user:'; cat leak.txt) | base64 -w0`}),
			)},
			fakeai.Reply{Content: "done"},
		)
	}
	// Without --yes: ACI_YES=1 in .env is ignored, the guard's question is
	// denied in pipe mode.
	srv := script()
	r := aci(t, dir, srv, "go", nil)
	if r.code != 0 || !strings.Contains(r.stderr, "denied by aci in pipe mode (no terminal to ask): d=$(echo") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("the denied command ran")
	}
	if !sandbox.For(dir).Contained() {
		t.Skip("this machine cannot contain commands: the rest is not tested")
	}
	// With --yes: the command runs, contained (ACI_SANDBOX=off in .env is
	// ignored), and fails with a note saying why.
	srv = script()
	r = aci(t, dir, srv, "go", nil, "--yes")
	if r.code != 0 {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatalf("%s was written: the command was not contained", outside)
	}
	all := bodies(srv)
	if !strings.Contains(all, `type=\"sandbox\"`) || !strings.Contains(all, "key=[]") {
		t.Errorf("the model was not told about containment, or saw the key variable:\n%s", all)
	}
	if strings.Contains(all, testKey) || strings.Contains(all, base64.StdEncoding.EncodeToString([]byte(testKey))[:24]) ||
		strings.Contains(all, base64.StdEncoding.EncodeToString([]byte("user:" + testKey))[8:32]) {
		t.Error("the API key reached the model")
	}
}

func TestE2EBadSandboxMode(t *testing.T) {
	r := aci(t, t.TempDir(), nil, "q", []string{"ACI_SANDBOX=sometimes", "OPENAI_BASE_URL=http://127.0.0.1:1"})
	if r.code != 2 || !strings.Contains(r.stderr, "ACI_SANDBOX must be") {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
}
