package e2e

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// reverse returns s backwards.
func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// rot13 returns s with its letters rotated by 13.
func rot13(s string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z':
			return 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			return 'A' + (c-'A'+13)%26
		}
		return c
	}, s)
}

// A contained command reads the workspace's .env as empty, whatever the
// route (a glob and rev, awk, Python's rot13, Node reversing it, a copy
// committed with git), even with every question the guard asks allowed: no encoding of its value reaches the model, a
// commit or a file outside the workspace, and the result names the file
// aci kept back and how to ask for it.
func TestE2ESecretFileKeptBackEveryRoute(t *testing.T) {
	work, gitEnv := gitWorkspace(t)
	containedOrSkip(t, work)
	home := t.TempDir()
	outside := t.TempDir()
	routes := []string{
		"cat .e?v | rev",
		"awk 1 .en* | rev",
		`python3 -c "import codecs; print(codecs.encode(open('.e'+'nv').read(), 'rot13'))"`,
		`node -e "const f='.e'+'nv'; console.log(require('fs').readFileSync(f,'utf8').split('').reverse().join(''))"`,
		`python3 -c "import shutil; shutil.copy('.e'+'nv', 's1.txt')" && git add s1.txt && git commit -qm s1 && git show HEAD:s1.txt | base64`,
		"cat .e?v > " + filepath.Join(outside, "leak.txt") + "; cat .e?v | base64 | rev",
	}
	replies := []fakeai.Reply{{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))}}
	for _, r := range routes {
		replies = append(replies, runCall(r))
	}
	replies = append(replies, fakeai.Reply{Content: "done"})
	srv := fakeai.New(t, replies...)
	// --yes: the guard's own questions (a write outside the workspace, a
	// path it cannot resolve) are allowed; the wall is the sandbox.
	r := aci(t, work, srv, "look", append([]string{"HOME=" + home}, gitEnv...), "--yes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var sent strings.Builder
	for _, q := range srv.Requests() {
		for _, m := range q.Messages {
			sent.WriteString(m.Content)
		}
	}
	for _, enc := range []string{dotenvSecret, reverse(dotenvSecret), rot13(dotenvSecret),
		base64.StdEncoding.EncodeToString([]byte("PAYMENT_API_SECRET=" + dotenvSecret)), reverse(base64.StdEncoding.EncodeToString([]byte("PAYMENT_API_SECRET=" + dotenvSecret + "\n")))} {
		if strings.Contains(sent.String(), enc) || strings.Contains(r.stdout+r.stderr, enc) {
			t.Errorf("the model or the output got %q", enc)
		}
	}
	for i := range routes {
		id := "call_" + string(rune('2'+i)) + "_1"
		got := resultOf(t, srv, id)
		if !strings.Contains(got, "it tried to read .env, which aci keeps back") || !strings.Contains(got, `read: [".env"]`) {
			t.Errorf("%s: the result does not name the file kept back and how to ask: %q", id, got)
		}
	}
	// Nothing of it in git, nor outside the workspace.
	log, err := exec.Command("git", "-C", work, "log", "-p", "--all").CombinedOutput()
	if err != nil {
		t.Fatalf("git log: %v %s", err, log)
	}
	if !strings.Contains(string(log), "s1") || strings.Contains(string(log), dotenvSecret) {
		t.Errorf("git log -p:\n%s", log)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "leak.txt")); err == nil && strings.Contains(string(b), dotenvSecret) {
		t.Errorf("the secret reached a file outside the workspace")
	}
	if b, _ := os.ReadFile(filepath.Join(work, ".env")); !strings.Contains(string(b), dotenvSecret) {
		t.Errorf(".env changed: %q", b)
	}
}

// A command asks to read .env with read: the question names the file
// (denied in pipe mode, the denial says what was asked), and once allowed
// (--yes) that command reads the real file.
func TestE2ESecretFileReadWhenAllowed(t *testing.T) {
	work, gitEnv := gitWorkspace(t)
	containedOrSkip(t, work)
	body, _ := os.ReadFile(filepath.Join(work, ".env"))
	sum := sha256.Sum256(body)
	want := hex.EncodeToString(sum[:])
	script := func() *fakeai.Server {
		return fakeai.New(t,
			fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
			fakeai.Reply{Content: fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "sha256sum .env", "read": []string{".env"}}))},
			runCall("sha256sum .env"),
			fakeai.Reply{Content: "done"},
		)
	}
	env := append([]string{"HOME=" + t.TempDir()}, gitEnv...)

	srv := script()
	if r := aci(t, work, srv, "hash it", env); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := resultOf(t, srv, "call_2_1")
	if !strings.Contains(got, `status="denied"`) || !strings.Contains(got, "reads .env, secret file aci keeps back from commands") {
		t.Errorf("the question does not name the file: %q", got)
	}

	srv = script()
	if r := aci(t, work, srv, "hash it", env, "--yes"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	var sent strings.Builder
	for _, m := range last.Messages {
		sent.WriteString(m.Content)
	}
	if n := strings.Count(sent.String(), want); n != 1 {
		t.Errorf("the allowed run's hash appears %d times (want once: the next run without read sees it empty):\n%s", n, sent.String())
	}
	empty := sha256.Sum256(nil)
	if !strings.Contains(sent.String(), hex.EncodeToString(empty[:])) {
		t.Errorf("the run without read did not see .env empty")
	}
}
