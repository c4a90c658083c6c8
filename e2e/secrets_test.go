package e2e

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// Values the workspace's .env and aci's environment hold in the tests
// below; none may reach a command's environment, a commit, the model or
// aci's output.
const (
	dotenvSecret = "dotenv-pay-secret-5566aa"
	credSecret   = "cred-token-value-778899"
)

// gitWorkspace is a repository with .env ignored and one commit.
func gitWorkspace(t *testing.T) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	work := t.TempDir()
	env := []string{"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1"}
	gitRun := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), env...)
		cmd.Env = append(cmd.Env, "HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(work, ".gitignore"), []byte(".env\n*.log\nenvdump.txt\n"), 0o644)
	os.WriteFile(filepath.Join(work, ".env"), []byte("PAYMENT_API_SECRET="+dotenvSecret+"\nPROJECT_MODE=development\n"), 0o600)
	gitRun("init", "-q", "-b", "main")
	gitRun("add", ".gitignore")
	gitRun("commit", "-q", "-m", "start")
	return work, env
}

func gitCount(t *testing.T, dir string) int {
	out, err := exec.Command("git", "-C", dir, "rev-list", "--count", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range strings.TrimSpace(string(out)) {
		n = n*10 + int(c-'0')
	}
	return n
}

// In pipe mode without --yes, a commit that would publish a value of the
// workspace's .env, or a force-added ignored file, is denied with the file
// named and the value shown nowhere; an ordinary commit runs.
func TestCommitOfASecretIsDenied(t *testing.T) {
	work, gitEnv := gitWorkspace(t)
	run := func(cmd string) fakeai.Reply {
		return act(bashRun(cmd))
	}
	srv := fakeai.New(t,
		act(openBash),
		run(`cp .env settings.txt && git add settings.txt && git commit -qm settings`),
		run(`rm -f settings.txt; git add -f .env && git commit -qm env`),
		run(`git reset -q; echo hello > readme.md && git add readme.md && git commit -qm readme`),
		fakeai.Reply{Content: "done"},
	)
	r := aciOK(t, work, srv, "commit the settings", append(gitEnv, "HOME="+t.TempDir()))
	reqs := srv.Requests()
	last := ""
	for _, m := range reqs[len(reqs)-1].Messages {
		last += m.Content
	}
	results := strings.Split(last, "<result ")
	var runs []string
	for _, res := range results {
		if strings.Contains(res, `action_id="run"`) {
			runs = append(runs, res)
		}
	}
	if len(runs) != 3 {
		t.Fatalf("want 3 run results, got %d:\n%s", len(runs), last)
	}
	for i, want := range []string{"settings.txt", ".env"} {
		if !strings.Contains(runs[i], `status="denied"`) || !strings.Contains(runs[i], want) {
			t.Errorf("run %d: want denied naming %s, got %.300s", i+1, want, runs[i])
		}
	}
	if strings.Contains(runs[2], `status="denied"`) {
		t.Errorf("an ordinary commit was denied: %.300s", runs[2])
	}
	if n := gitCount(t, work); n != 2 {
		t.Errorf("%d commits, want 2 (start and readme)", n)
	}
	for i, req := range reqs {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, dotenvSecret) {
				t.Errorf("request %d carries the .env value to the model", i+1)
			}
		}
	}
	if strings.Contains(r.stdout+r.stderr, dotenvSecret) {
		t.Errorf("the .env value appeared in aci's output")
	}
}

// A command's environment holds none of aci's key, the credential
// variables, the values of the workspace's .env, nor the .env entries
// that are not aci's.
func TestCommandEnvironmentHoldsNoSecret(t *testing.T) {
	work, gitEnv := gitWorkspace(t)
	extra := append(gitEnv, "HOME="+t.TempDir(), "MY_SERVICE_TOKEN="+credSecret,
		"RENAMED_COPY="+dotenvSecret, "HARMLESS_SETTING=kept-as-is")
	for _, mode := range []string{"workspace", "off"} {
		t.Run("ACI_SANDBOX="+mode, func(t *testing.T) {
			os.Remove(filepath.Join(work, "envdump.txt"))
			srv := fakeai.New(t,
				act(openBash),
				act(bashRun("env > envdump.txt")),
				fakeai.Reply{Content: "done"},
			)
			aciOK(t, work, srv, "show env", append(extra, "ACI_SANDBOX="+mode))
			data, err := os.ReadFile(filepath.Join(work, "envdump.txt"))
			if err != nil {
				t.Fatal(err)
			}
			env := string(data)
			if !strings.Contains(env, "HARMLESS_SETTING=kept-as-is") {
				t.Fatalf("the dump lacks ordinary variables:\n%s", env)
			}
			for _, bad := range []string{testKey, credSecret, dotenvSecret, "PROJECT_MODE=", "PAYMENT_API_SECRET"} {
				if strings.Contains(env, bad) {
					t.Errorf("the command's environment holds %q", bad)
				}
			}
		})
	}
}

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
	replies := []fakeai.Reply{{Content: fakeai.ToolCall(openBash)}}
	for _, r := range routes {
		replies = append(replies, runCall(r))
	}
	replies = append(replies, fakeai.Reply{Content: "done"})
	srv := fakeai.New(t, replies...)
	// --yes: the guard's own questions (a write outside the workspace, a
	// path it cannot resolve) are allowed; the wall is the sandbox.
	r := aciOK(t, work, srv, "look", append([]string{"HOME=" + home}, gitEnv...), "--yes")
	sent := srv.Sent()
	for _, enc := range []string{dotenvSecret, reverse(dotenvSecret), rot13(dotenvSecret),
		base64.StdEncoding.EncodeToString([]byte("PAYMENT_API_SECRET=" + dotenvSecret)), reverse(base64.StdEncoding.EncodeToString([]byte("PAYMENT_API_SECRET=" + dotenvSecret + "\n")))} {
		if strings.Contains(sent, enc) || strings.Contains(r.stdout+r.stderr, enc) {
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
			act(openBash),
			act(call("bash_1", "run", map[string]any{"command": "sha256sum .env", "read": []string{".env"}})),
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
	sent := srv.Requests()[len(srv.Requests())-1].Text()
	if n := strings.Count(sent, want); n != 1 {
		t.Errorf("the allowed run's hash appears %d times (want once: the next run without read sees it empty):\n%s", n, sent)
	}
	empty := sha256.Sum256(nil)
	if !strings.Contains(sent, hex.EncodeToString(empty[:])) {
		t.Errorf("the run without read did not see .env empty")
	}
}

// The secret files the guard and the sandbox once disagreed on
// (credentials.json, .netrc, prod.env, *.p12 were secrets to the guard
// only, .env.dist to the sandbox only) and a token-bearing .npmrc: a
// contained command reading one by a name the guard cannot see (cat of
// a computed name, Python, Node) reads it as empty, and the result names
// the file kept back (or the guard, seeing through the spelling, asks:
// denied in pipe mode); no byte of any reaches the model; the file window asks before opening each (denied
// in pipe mode); .env.example, a template, reads as it is.
func TestE2EEverySecretNameKeptBack(t *testing.T) {
	work, gitEnv := gitWorkspace(t)
	containedOrSkip(t, work)
	files := map[string]string{
		"credentials.json": `{"token": "MARK-credjson-4410"}`,
		".netrc":           "machine example.com login u password MARK-netrc-4411\n",
		"prod.env":         "PAY_KEY=MARK-prodenv-4412\n",
		"x.p12":            "MARK-p12-4413\n",
		".env.dist":        "PAY_KEY=MARK-envdist-4414\n",
		".npmrc":           "//registry.npmjs.org/:_authToken=MARK-npmrc-4415\n",
	}
	const template = "PAY_KEY=MARK-template-4416\n"
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(work, ".env.example"), []byte(template), 0o644)

	// Each name split in two, so that no command spells it.
	names := []string{"credentials.json", ".netrc", "prod.env", "x.p12", ".env.dist", ".npmrc"}
	type step struct {
		file, route string
	}
	var steps []step
	replies := []fakeai.Reply{{Content: fakeai.ToolCall(openBash)}}
	for _, n := range names {
		a, b := n[:2], n[2:]
		for _, r := range []string{
			fmt.Sprintf(`cat "$(printf %%s '%s')%s" | rev`, a, b),
			fmt.Sprintf(`python3 -c "print(open('%s'+'%s').read()[::-1])"`, a, b),
			fmt.Sprintf(`node -e "console.log(require('fs').readFileSync('%s'+'%s','utf8').split('').reverse().join(''))"`, a, b),
		} {
			steps = append(steps, step{n, r})
			replies = append(replies, runCall(r))
		}
	}
	firstOpen := len(replies) + 1
	for _, n := range append(names, ".env.example") {
		replies = append(replies, act(openFile(n)))
	}
	replies = append(replies, fakeai.Reply{Content: "done"})
	srv := fakeai.New(t, replies...)
	r := aciOK(t, work, srv, "look", append([]string{"HOME=" + t.TempDir()}, gitEnv...))
	sent := srv.Sent()
	for _, body := range files {
		mark := body[strings.Index(body, "MARK-"):]
		mark = mark[:strings.IndexAny(mark, "\"\n")]
		for _, enc := range []string{mark, reverse(mark)} {
			if strings.Contains(sent, enc) || strings.Contains(r.stdout+r.stderr, enc) {
				t.Errorf("the model or the output got %q", enc)
			}
		}
	}
	for i, s := range steps {
		got := resultOf(t, srv, fmt.Sprintf("call_%d_1", i+2))
		// The guard sees through some spellings (Python joining two
		// literals) and asks first: denied here, which holds too; a
		// computed name in the shell it cannot see, so cat runs
		// contained, and the sandbox is the wall.
		guardAsked := strings.Contains(got, `status="denied"`) && strings.Contains(got, "reads a secret file")
		if !strings.Contains(got, "it tried to read "+s.file+", which aci keeps back") && (!guardAsked || strings.HasPrefix(s.route, "cat")) {
			t.Errorf("%s: the result does not name %s kept back: %q", s.route, s.file, got)
		}
	}
	for i, n := range names {
		got := resultOf(t, srv, fmt.Sprintf("call_%d_1", firstOpen+i))
		if !strings.Contains(got, `status="denied"`) {
			t.Errorf("open %s: the file window did not ask (denied in pipe mode): %q", n, got)
		}
	}
	got := resultOf(t, srv, fmt.Sprintf("call_%d_1", firstOpen+len(names)))
	if strings.Contains(got, `status="denied"`) || !strings.Contains(sent, "MARK-template-4416") {
		t.Errorf(".env.example is a template, not a secret: %q", got)
	}
}
