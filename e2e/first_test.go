package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The key set once in ~/.config/aci/.env is found from any folder; a
// folder's .env still wins over it.
func TestKeySetOnceFromAnyFolder(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "from the person's file"}, fakeai.Reply{Content: "from the folder's .env"})
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".config", "aci", ".env"), "OPENAI_API_KEY="+testKey+"\nOPENAI_BASE_URL="+srv.URL+"\nOPENAI_MODEL=user-model\n", 0o600)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}

	project := t.TempDir() // any folder, with no .env
	r := aciEnv(t, project, env, "q", "-p", "hello")
	if r.code != 0 || r.stdout != "from the person's file\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	req := srv.Requests()[0]
	if req.APIKey() != testKey || req.Model != "user-model" {
		t.Errorf("key sent %v, model %q: the person's file was not used", req.APIKey() == testKey, req.Model)
	}

	other := t.TempDir()
	writeFile(t, filepath.Join(other, ".env"), "OPENAI_API_KEY=sk-folder-key-0987654321\n", 0o600)
	r = aciEnv(t, other, env, "", "-p", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if req := srv.Requests()[1]; req.APIKey() != "sk-folder-key-0987654321" || req.Model != "user-model" {
		t.Errorf("the folder's key did not win (model %q)", req.Model)
	}
}

// Without a key anywhere, the message names each file aci looked in.
func TestNoKeyMessageBinary(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"OPENAI_BASE_URL=https://api.example.com/v1"}
	r := aciEnv(t, dir, env, "hi")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2", r.code)
	}
	for _, want := range []string{"OPENAI_API_KEY is not set (the key for api.example.com)", filepath.Join(dir, ".env") + " (no such file)",
		"~/.config/aci/.env (no such file)", "put OPENAI_API_KEY=sk-... in ~/.config/aci/.env"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if n := strings.Count(strings.TrimSpace(r.stderr), "\n") + 1; n > 8 {
		t.Errorf("%d lines:\n%s", n, r.stderr)
	}
}

// Each sub-command has its own help, and refuses what it does not take
// naming the right spelling.
func TestSubcommandHelpAndFlags(t *testing.T) {
	srv := fakeai.New(t)
	tests := []struct {
		args           []string
		code           int
		stdout, stderr []string
	}{
		{args: []string{"--help"}, stdout: []string{"aci serve", "aci acp", "--serve [HOST:PORT]", "~/.config/aci/.env"}},
		{args: []string{"serve", "--help"}, stdout: []string{"aci serve [--addr HOST:PORT]", "ACI_SERVE_TOKEN", "ACI_SERVE_APPROVAL_TIMEOUT", "Example:", "/api/openapi.json"}},
		{args: []string{"serve", "-h"}, stdout: []string{"aci serve — "}},
		{args: []string{"acp", "--help"}, stdout: []string{"aci acp [--model NAME]", "--max-steps N", "Agent Client Protocol", "Example", "acp.log"}},
		{args: []string{"acp", "--version"}, stdout: []string{"aci "}},
		{args: []string{"serve", "--port", "8000"}, code: 2, stderr: []string{"unknown flag --port; did you mean --addr?"}},
		{args: []string{"acp", "--yes"}, code: 2, stderr: []string{"aci acp does not take --yes"}},
		{args: []string{"acp", "-p", "hi"}, code: 2, stderr: []string{"aci acp does not take -p"}},
		{args: []string{"--sesions"}, code: 2, stderr: []string{"unknown flag --sesions; did you mean --sessions?"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := aci(t, t.TempDir(), srv, "", nil, tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, tt.code, r.stderr)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
			for _, w := range tt.stderr {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stdout, "docs/") {
				t.Errorf("help points into the repository:\n%s", r.stdout)
			}
		})
	}
}

// echo question | aci -p: the question comes from stdin.
func TestBarePReadsStdin(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "an answer"}, fakeai.Reply{Content: "another"})
	for i, args := range [][]string{{"-p"}, {"-p", "--output-format", "text"}} {
		r := aci(t, t.TempDir(), srv, "what is in the question?\n", nil, args...)
		if r.code != 0 {
			t.Fatalf("%q: exit %d stderr %q", args, r.code, r.stderr)
		}
		if q := srv.Requests()[i].Messages[1].Content; !strings.HasPrefix(q, "what is in the question?") || strings.Contains(q, "<stdin>") {
			t.Errorf("%q: question %.80q", args, q)
		}
	}
	if r := aci(t, t.TempDir(), srv, "", nil, "-p"); r.code != 2 || !strings.Contains(r.stderr, "no question") {
		t.Errorf("empty stdin: exit %d stderr %q", r.code, r.stderr)
	}
}
