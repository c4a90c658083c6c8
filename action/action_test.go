// Package action tests the GitHub Action (action.yml at the repository's
// root): its metadata and the example workflows with actionlint, and its
// agent step (run.sh) with the real aci binary and the scripted model.
package action

import (
	"bufio"
	"bytes"
	"encoding/json"
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

// root is the repository's root folder.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// needActionlint finds actionlint on PATH or in $(go env GOPATH)/bin; it
// skips (fails on CI, which installs it) when there is none.
func needActionlint(t *testing.T) string {
	t.Helper()
	testutil.NeedOnPath(t, "actionlint", testutil.GoBins(), "actionlint is not installed: go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12")
	p, _ := exec.LookPath("actionlint")
	return p
}

// TestActionlint lints the example workflows as a repository using this
// action locally would hold them, so actionlint also checks action.yml and
// that every input a workflow passes is one the action declares.
func TestActionlint(t *testing.T) {
	lint := needActionlint(t)
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	meta, err := os.ReadFile(filepath.Join(root(), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, "action.yml"), meta, 0o644)
	wf := filepath.Join(repo, ".github", "workflows")
	os.MkdirAll(wf, 0o755)
	examples, _ := filepath.Glob(filepath.Join(root(), "docs", "examples", "github", "*.yml"))
	if len(examples) < 3 {
		t.Fatalf("%d example workflows, want review, triage and fan-out", len(examples))
	}
	for _, f := range examples {
		data, _ := os.ReadFile(f)
		if !bytes.Contains(data, []byte("aci-dev/aci@v1")) {
			t.Errorf("%s does not use the action", f)
		}
		data = bytes.ReplaceAll(data, []byte("aci-dev/aci@v1"), []byte("./"))
		os.WriteFile(filepath.Join(wf, filepath.Base(f)), data, 0o644)
	}
	cmd := exec.Command(lint, "-no-color")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}
	// The check bites: an input the action does not declare is an error.
	bad := filepath.Join(wf, "bad.yml")
	os.WriteFile(bad, []byte("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: ./\n        with:\n          promt: hi\n"), 0o644)
	cmd = exec.Command(lint, "-no-color", bad)
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), `input "promt" is not defined`) {
		t.Errorf("actionlint let an undeclared input through: %v\n%s", err, out)
	}
}

// runStep runs run.sh as the action's step does, with ACI_BIN a wrapper
// that records the environment aci was given. It returns the exit code,
// stderr, the outputs written to $GITHUB_OUTPUT and aci's environment.
func runStep(t *testing.T, dir string, inputs map[string]string) (int, string, map[string]string, []string) {
	t.Helper()
	bin := testbin.Build(t)
	tmp := t.TempDir()
	envFile := filepath.Join(tmp, "aci.env")
	wrapper := filepath.Join(tmp, "aci-wrapper")
	os.WriteFile(wrapper, []byte("#!/bin/sh\nenv > '"+envFile+"'\nexec '"+bin+"' \"$@\"\n"), 0o755)
	outFile := filepath.Join(tmp, "github_output")
	os.WriteFile(outFile, nil, 0o644)
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(tmp, "home"),
		"ACI_BIN=" + wrapper, "GITHUB_OUTPUT=" + outFile, "RUNNER_TEMP=" + tmp,
		// What a job's environment may hold that must not reach the agent.
		"GITHUB_TOKEN=ghs_jobtoken123", "ACTIONS_RUNTIME_TOKEN=rt_secret", "OTHER_SECRET=s3cret",
		"ACI_SANDBOX=off", // the job's own setting must not pass either
	}
	for k, v := range inputs {
		env = append(env, "INPUT_"+k+"="+v)
	}
	cmd := exec.Command("bash", filepath.Join(root(), "action", "run.sh"))
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run.sh: %v", err)
	}
	raw, _ := os.ReadFile(outFile)
	envData, _ := os.ReadFile(envFile)
	return code, stderr.String(), parseOutputs(t, string(raw)), strings.Split(string(envData), "\n")
}

// parseOutputs reads $GITHUB_OUTPUT: NAME<<DELIM lines, the value, DELIM.
func parseOutputs(t *testing.T, raw string) map[string]string {
	t.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(raw))
	for sc.Scan() {
		name, delim, ok := strings.Cut(sc.Text(), "<<")
		if !ok {
			t.Fatalf("output line %q is not NAME<<DELIM", sc.Text())
		}
		var val []string
		for sc.Scan() && sc.Text() != delim {
			val = append(val, sc.Text())
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

func TestActionStepAnswersWithCheckedOutput(t *testing.T) {
	dir := gitRepo(t)
	schema := filepath.Join(dir, "schema.json")
	os.WriteFile(schema, []byte(`{"type":"object","required":["labels"],"properties":{"labels":{"type":"array","items":{"type":"string"}}}}`), 0o644)
	srv := fakeai.New(t, fakeai.Reply{Content: `{"labels": ["bug"]}`, PromptTokens: 100, CompletionTokens: 10})
	code, stderr, outs, env := runStep(t, dir, map[string]string{
		"PROMPT": "triage this", "API_KEY": "sk-action-key", "PROVIDER": srv.URL, "MODEL": "test-model",
		"PERMISSION_MODE": "plan", "OUTPUT_SCHEMA": schema, "MAX_STEPS": "5", "MAX_TURNS": "1",
		"MAX_BUDGET_USD": "0.5", "ALLOW_RULES": "bash:go test *\n\n", "SANDBOX": "workspace",
	})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if outs["answer"] != `{"labels": ["bug"]}` || outs["outcome"] != "answered" {
		t.Errorf("outputs %v", outs)
	}
	var so map[string]any
	if err := json.Unmarshal([]byte(outs["structured-output"]), &so); err != nil || so["labels"] == nil {
		t.Errorf("structured-output %q: %v", outs["structured-output"], err)
	}
	if outs["session-id"] == "" || outs["transcript"] == "" {
		t.Fatalf("no session or transcript: %v", outs)
	}
	if _, err := os.Stat(outs["transcript"]); err != nil {
		t.Errorf("transcript: %v", err)
	}
	joined := strings.Join(env, "\n")
	for _, leak := range []string{"ghs_jobtoken123", "rt_secret", "s3cret", "ACI_SANDBOX=off"} {
		if strings.Contains(joined, leak) {
			t.Errorf("aci's environment holds %q:\n%s", leak, joined)
		}
	}
	for _, want := range []string{"OPENAI_API_KEY=sk-action-key", "OPENAI_BASE_URL=" + srv.URL, "ACI_SANDBOX=workspace"} {
		if !strings.Contains(joined, want) {
			t.Errorf("aci's environment lacks %q", want)
		}
	}
	// The rules reached the run's settings.
	settings, _ := os.ReadFile(filepath.Join(filepath.Dir(outs["transcript"]), "config", "aci", "settings.json"))
	if !strings.Contains(string(settings), `"bash:go test *"`) {
		t.Errorf("settings %s", settings)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
}

func TestActionStepRefuses(t *testing.T) {
	tokenRepo := gitRepo(t)
	exec.Command("git", "-C", tokenRepo, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic eDp0b2tlbg==").Run()
	tests := []struct {
		name   string
		dir    string
		inputs map[string]string
		want   string
	}{
		{"no task", "", map[string]string{}, "no task"},
		{"both prompts", "", map[string]string{"PROMPT": "a", "PROMPT_FILE": "x.md"}, "not both"},
		{"ask mode", "", map[string]string{"PROMPT": "a", "PERMISSION_MODE": "ask"}, "needs a person"},
		{"bad budget", "", map[string]string{"PROMPT": "a", "MAX_BUDGET_USD": "lots"}, "must be a number"},
		{"bad provider", "", map[string]string{"PROMPT": "a", "PROVIDER": "elsewhere"}, "use openai"},
		{"token in git config", tokenRepo, map[string]string{"PROMPT": "a"}, "persist-credentials: false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir
			if dir == "" {
				dir = gitRepo(t)
			}
			code, stderr, _, env := runStep(t, dir, tt.inputs)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, tt.want)
			}
			if len(env) > 1 {
				t.Errorf("aci ran: %v", env)
			}
		})
	}
}
