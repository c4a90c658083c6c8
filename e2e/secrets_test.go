package e2e

import (
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
		return fakeai.Reply{Content: fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": cmd}))}
	}
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
		run(`cp .env settings.txt && git add settings.txt && git commit -qm settings`),
		run(`rm -f settings.txt; git add -f .env && git commit -qm env`),
		run(`git reset -q; echo hello > readme.md && git add readme.md && git commit -qm readme`),
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, work, srv, "commit the settings", append(gitEnv, "HOME="+t.TempDir()))
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
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
				fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
				fakeai.Reply{Content: fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "env > envdump.txt"}))},
				fakeai.Reply{Content: "done"},
			)
			r := aci(t, work, srv, "show env", append(extra, "ACI_SANDBOX="+mode))
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
			}
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
