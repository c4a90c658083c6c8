package windows

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/tools/sandbox"
)

// The read parameter asks, naming the file; "always" covers that file for
// the rest of the session; a command the guard asks about because it
// reads a secret it names reads it once allowed, and the question says
// so; a path that is not a kept-back secret is a clear error.
func TestBashReadSecretQuestion(t *testing.T) {
	var asked []ApprovalRequest
	answer := Decision{Allow: true, Always: true}
	m, dir := newAppsManager(t, ApproverFunc(func(_ context.Context, req ApprovalRequest) Decision {
		asked = append(asked, req)
		return answer
	}))
	if sandbox.For(dir).Kind() != sandbox.Bwrap {
		t.Skip("secret files are kept back only under bubblewrap")
	}
	os.WriteFile(filepath.Join(dir, ".env"), []byte("TOKEN=envvalue-1\n"), 0o600)
	os.MkdirAll(filepath.Join(dir, "keys"), 0o755)
	os.WriteFile(filepath.Join(dir, "keys", "deploy.pem"), []byte("pemvalue-2\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("plain\n"), 0o600)
	do(t, m, "launcher", "open", `{"app":"bash"}`)

	do(t, m, "bash_1", "run", `{"command":"rev .e?v","read":[".env"]}`)
	if len(asked) != 1 || !strings.Contains(asked[0].Reason, "reads .env, secret file aci keeps back from commands — allowing makes it readable for this command") {
		t.Fatalf("asked %+v", asked)
	}
	if got := content(m, "bash_1"); !strings.Contains(got, "1-eulavvne") {
		t.Errorf("allowed, not read:\n%s", got)
	}
	// Always: not asked again for .env.
	do(t, m, "bash_1", "run", `{"command":"rev .e?v | tr a-z A-Z","read":[".env"]}`)
	if len(asked) != 1 {
		t.Errorf("asked again after always: %+v", asked[1:])
	}
	if got := content(m, "bash_1"); !strings.Contains(got, "1-EULAVVNE") {
		t.Errorf("remembered, not read:\n%s", got)
	}
	// Without read it is kept back again, and the result says how to ask.
	r := do(t, m, "bash_1", "run", `{"command":"rev .e?v"}`)
	if strings.Contains(content(m, "bash_1"), "eulavvne") || !strings.Contains(r.Text, `it tried to read .env, which aci keeps back`) {
		t.Errorf("kept back: %q\n%s", r.Text, content(m, "bash_1"))
	}
	// A background task is told the same, in the window.
	do(t, m, "bash_1", "start", `{"command":"rev .e?v"}`)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(content(m, "bash_1"), "completed") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := content(m, "bash_1"); !strings.Contains(got, "it tried to read .env, which aci keeps back") {
		t.Errorf("the task does not say what it was kept from:\n%s", got)
	}
	// The guard's own question for a secret the command names.
	answer = Decision{Allow: true}
	do(t, m, "bash_1", "run", `{"command":"cat keys/deploy.pem | rev"}`)
	if len(asked) != 2 || !strings.Contains(asked[1].Reason, "allowing makes keys/deploy.pem readable for this command") {
		t.Fatalf("asked %+v", asked)
	}
	if got := content(m, "bash_1"); !strings.Contains(got, "2-eulavmep") {
		t.Errorf("allowed by the guard's question, not read:\n%s", got)
	}
	// Denied: nothing read.
	answer = Decision{}
	r = do(t, m, "bash_1", "run", `{"command":"cat keys/deploy.pem","read":["keys/deploy.pem"]}`)
	if r.Status != "denied" {
		t.Errorf("denied question ran: %+v", r)
	}
	r = do(t, m, "bash_1", "run", `{"command":"cat notes.txt","read":["notes.txt"]}`)
	if r.Status != "error" || !strings.Contains(r.Text, "notes.txt is not a secret file aci keeps back") {
		t.Errorf("not a secret: %+v", r)
	}
}
