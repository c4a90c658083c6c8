package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

// Claude Code hook scripts in the shapes its docs show, unchanged: they
// read the event on stdin with python (no jq) and answer with exit codes.
const (
	// A command validator: PreToolUse on Bash, exit 2 blocks rm -rf.
	validatorHook = `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
cmd = data.get("tool_input", {}).get("command", "")
if data.get("tool_name") == "Bash" and "rm -rf" in cmd:
    print("Blocked: rm -rf is not allowed here; delete single files instead", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
`
	// A formatter after edits: PostToolUse on Edit|Write runs gofmt.
	formatHook = `#!/bin/sh
file=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"]["file_path"])')
case "$file" in *.go) gofmt -w "$file" ;; esac
exit 0
`
	// A prompt context adder: UserPromptSubmit's stdout is context.
	contextHook = `#!/bin/sh
cat > /dev/null
echo "Current sprint: ACI-42 (freeze on Friday)"
`
	// A stop gate: the first Stop is refused, once.
	stopHook = `#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
mark = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], ".stopped-once")
if not data.get("stop_hook_active") and not os.path.exists(mark):
    open(mark, "w").close()
    print("Run the tests before you stop.", file=sys.stderr)
    sys.exit(2)
`
)

func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func hookSettings(t *testing.T, hooks map[string][]map[string]any) string {
	b, err := json.Marshal(map[string]any{"hooks": hooks})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func group(matcher string, command string, timeout int) map[string]any {
	h := map[string]any{"type": "command", "command": command}
	if timeout > 0 {
		h["timeout"] = timeout
	}
	g := map[string]any{"hooks": []any{h}}
	if matcher != "" {
		g["matcher"] = matcher
	}
	return g
}

func TestClaudeCodeHooksRunUnchanged(t *testing.T) {
	for _, tool := range []string{"python3", "gofmt"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	dir, xdg, scripts := t.TempDir(), t.TempDir(), t.TempDir()
	testfs.File(t, filepath.Join(dir, "keep", "f"), "x")
	settings := hookSettings(t, map[string][]map[string]any{
		"PreToolUse":       {group("Bash", hookScript(t, scripts, "validate.py", validatorHook), 0)},
		"PostToolUse":      {group("Edit|Write", hookScript(t, scripts, "format.sh", formatHook), 0)},
		"UserPromptSubmit": {group("", hookScript(t, scripts, "context.sh", contextHook), 0)},
		"Stop":             {group("", hookScript(t, scripts, "stop.py", stopHook), 0)},
	})
	testfs.File(t, filepath.Join(xdg, "aci", "settings.json"), settings)
	srv := fakeai.New(t,
		act(
			openBash,
			bashRun("rm -rf keep"),
			openFile("main.go"),
			call("file_1", "write", map[string]any{"content": "package main\nfunc main(){\nprintln(1)}\n"}),
		),
		fakeai.Reply{Content: "all done"},
		act(bashRun("echo tests-pass")),
		fakeai.Reply{Content: "tests pass, done"},
	)
	r := aciOK(t, dir, srv, "tidy up", []string{"XDG_CONFIG_HOME=" + xdg}, "--yes")
	if _, err := os.Stat(filepath.Join(dir, "keep", "f")); err != nil {
		t.Error("the validator did not block rm -rf")
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4 (the Stop hook makes the model go on once)", len(reqs))
	}
	first := reqs[0].Last()
	if !strings.Contains(first, "Current sprint: ACI-42") {
		t.Errorf("the UserPromptSubmit context is not in the question:\n%s", first)
	}
	results := reqs[1].Last()
	if !strings.Contains(results, "Blocked: rm -rf is not allowed here") {
		t.Errorf("the model is not told why the hook blocked:\n%s", results)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if want := "package main\n\nfunc main() {\n\tprintln(1)\n}\n"; string(b) != want {
		t.Errorf("the formatter hook did not run after the write: %q", b)
	}
	goOn := reqs[2].Last()
	if !strings.Contains(goOn, "Run the tests before you stop.") {
		t.Errorf("the Stop hook's instruction did not reach the model:\n%s", goOn)
	}
	if !strings.Contains(r.stdout, "tests pass, done") {
		t.Errorf("final answer %q", r.stdout)
	}
}

// A hook that hangs is ended at its timeout and is a notice, never a
// hang; one that prints megabytes is cut.
func TestHookTimeoutAndFlood(t *testing.T) {
	dir, xdg := t.TempDir(), t.TempDir()
	testfs.File(t, filepath.Join(xdg, "aci", "settings.json"), hookSettings(t, map[string][]map[string]any{
		"PreToolUse":  {group("Bash", "sleep 30", 1)},
		"PostToolUse": {group("", "head -c 5000000 /dev/zero | tr '\\0' x; exit 2", 0)},
	}))
	start := time.Now()
	r := aci(t, dir, runScript(t, "echo hello"), "go", []string{"XDG_CONFIG_HOME=" + xdg})
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %s", took)
	}
	if r.code != 0 || !strings.Contains(r.stderr, "timed out") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if len(r.stderr) > 200000 {
		t.Errorf("the flood reached the output: %d bytes", len(r.stderr))
	}
}

// Project hooks run only in a trusted folder: pipe mode skips them with a
// notice unless --trust.
func TestUntrustedProjectHooksDoNotRun(t *testing.T) {
	dir, xdg := t.TempDir(), t.TempDir()
	marker := filepath.Join(dir, "hook-ran")
	testfs.File(t, filepath.Join(dir, ".claude", "settings.json"), hookSettings(t, map[string][]map[string]any{
		"UserPromptSubmit": {group("", "touch "+marker, 0)},
	}))
	env := []string{"XDG_CONFIG_HOME=" + xdg}
	r := aci(t, dir, fakeai.New(t, fakeai.Reply{Content: "hi"}), "hello", env)
	if r.code != 0 || !strings.Contains(r.stderr, "not trusted") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted project hook ran")
	}
	r = aci(t, dir, fakeai.New(t, fakeai.Reply{Content: "hi"}), "hello", env, "--trust")
	if _, err := os.Stat(marker); r.code != 0 || err != nil {
		t.Fatalf("--trust did not run the project hook: exit %d\n%s", r.code, r.stderr)
	}
}

// A UserPromptSubmit hook that exits 2 drops the question: the model is
// not asked, the person reads the hook's stderr.
func TestPromptHookDropsTheQuestion(t *testing.T) {
	dir, xdg := t.TempDir(), t.TempDir()
	testfs.File(t, filepath.Join(xdg, "aci", "settings.json"), hookSettings(t, map[string][]map[string]any{
		"UserPromptSubmit": {group("", `python3 -c 'import json,sys; p=json.load(sys.stdin)["prompt"]; sys.exit(0 if "password" not in p else (print("no secrets in questions", file=sys.stderr) or 2))'`, 0)},
	}))
	srv := fakeai.New(t, fakeai.Reply{Content: "never"})
	r := aci(t, dir, srv, "my password is hunter2", []string{"XDG_CONFIG_HOME=" + xdg})
	if !strings.Contains(r.stderr, "no secrets in questions") || r.code == 0 {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
}

// A PreToolUse hook's JSON permissionDecision "allow" answers aci's
// question (pipe mode would deny it); "deny" refuses with its reason; a
// SessionStart hook's output reaches the model with the first question.
func TestHookJSONDecisionsAndSessionStart(t *testing.T) {
	dir, xdg, home := t.TempDir(), t.TempDir(), t.TempDir()
	outside := filepath.Join(home, "build")
	testfs.File(t, filepath.Join(outside, "f"), "x")
	decide := `python3 -c 'import json,sys
d=json.load(sys.stdin); c=d["tool_input"]["command"]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny" if "curl" in c else "allow", "permissionDecisionReason": "no network from here"}}))'`
	testfs.File(t, filepath.Join(xdg, "aci", "settings.json"), hookSettings(t, map[string][]map[string]any{
		"PreToolUse":   {group("Bash", decide, 0)},
		"SessionStart": {group("", "echo 'The build lives in ~/build.'", 0)},
	}))
	srv := fakeai.New(t,
		act(
			openBash,
			call("bash_1", "run", map[string]any{"command": "rm -rf " + outside, "uncontained": true}),
			bashRun("curl -s https://example.com"),
		),
		fakeai.Reply{Content: "done"},
	)
	r := aciOK(t, dir, srv, "clean the build", []string{"XDG_CONFIG_HOME=" + xdg, "HOME=" + home})
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("the hook's allow did not answer the question:\n%s", r.stderr)
	}
	reqs := srv.Requests()
	first := reqs[0].Last()
	if !strings.Contains(first, "The build lives in ~/build.") {
		t.Errorf("the SessionStart context is not with the first question:\n%s", first)
	}
	results := reqs[1].Last()
	if !strings.Contains(results, "blocked by a PreToolUse hook of the person's: no network from here") {
		t.Errorf("the deny's reason did not reach the model:\n%s", results)
	}
}

// TestProjectHookNamedAndPostToolUseOnlyAfterRun: a hook from the
// project's .claude/settings.json is said to be the project's, and
// PostToolUse runs after a call that ran, never after one denied (pipe
// mode denies a dangerous command without --yes).
func TestProjectHookNamedAndPostToolUseOnlyAfterRun(t *testing.T) {
	dir, xdg, logs := t.TempDir(), t.TempDir(), t.TempDir()
	log := filepath.Join(logs, "post.log")
	testfs.File(t, filepath.Join(dir, "keep", "f"), "x")
	testfs.File(t, filepath.Join(dir, ".claude", "settings.json"), hookSettings(t, map[string][]map[string]any{
		"PreToolUse":  {group("Bash", `grep -q curl && { echo "no network from here" >&2; exit 2; }; exit 0`, 0)},
		"PostToolUse": {group("Bash", "cat >> "+log+"; echo >> "+log, 0)},
	}))
	srv := fakeai.New(t,
		act(
			openBash,
			bashRun("curl -s https://example.com"),
			call("bash_1", "run", map[string]any{"command": "rm -rf " + filepath.Join(dir, "keep")}),
			bashRun("echo ran-fine"),
		),
		fakeai.Reply{Content: "done"},
	)
	r := aciOK(t, dir, srv, "go", []string{"XDG_CONFIG_HOME=" + xdg}, "--trust")
	if _, err := os.Stat(filepath.Join(dir, "keep", "f")); err != nil {
		t.Fatalf("the dangerous command ran without --yes:\n%s", r.stderr)
	}
	results := srv.Requests()[1].LastUser()
	if !strings.Contains(results, "blocked by a PreToolUse hook of the project's: no network from here") {
		t.Errorf("the block does not name the project's hook:\n%s", results)
	}
	b, _ := os.ReadFile(log)
	got := string(b)
	if !strings.Contains(got, "echo ran-fine") {
		t.Errorf("PostToolUse did not run after the command that ran:\n%s", got)
	}
	if strings.Contains(got, "rm -rf") || strings.Contains(got, "curl") {
		t.Errorf("PostToolUse ran for a denied or blocked call:\n%s", got)
	}
}

// runScript is one command the fake model runs, then "done".
func runScript(t *testing.T, command string) *fakeai.Server {
	return fakeai.New(t,
		act(
			openBash,
			bashRun(command),
		),
		fakeai.Reply{Content: "done"},
	)
}

// A deny rule in the person's settings refuses a command without asking,
// even with --yes and although the guard finds nothing dangerous in it.
func TestDenyRuleHonouredWithYes(t *testing.T) {
	dir, xdg := t.TempDir(), t.TempDir()
	testfs.File(t, filepath.Join(xdg, "aci", "settings.json"), `{"permissions": {"deny": ["bash:rm -rf"]}}`)
	testfs.File(t, filepath.Join(dir, "keep", "f"), "x")
	r := aci(t, dir, runScript(t, "ls && rm -rf keep"), "clean", []string{"XDG_CONFIG_HOME=" + xdg}, "--yes")
	if r.code != 0 || !strings.Contains(r.stderr, "denied by the rule deny bash:rm -rf") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep", "f")); err != nil {
		t.Error("the denied command ran")
	}
}

// A project's settings cannot allow what the person's do not: in ask
// mode, its allow entry leaves the command asked (denied in pipe mode);
// the same entry in the person's settings lets it run. A malformed entry
// is named with its file and key, and the rest applies.
func TestProjectRuleCannotWiden(t *testing.T) {
	dir, xdg := t.TempDir(), t.TempDir()
	testfs.File(t, filepath.Join(dir, ".aci", "settings.json"), `{"permissions": {"allow": ["bash:touch made.txt"]}}`)
	env := []string{"XDG_CONFIG_HOME=" + xdg}
	r := aci(t, dir, runScript(t, "touch made.txt"), "make it", env, "--permission-mode", "ask")
	if r.code != 0 || !strings.Contains(r.stderr, "denied by aci in pipe mode") || !strings.Contains(r.stderr, "can only narrow") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Fatal("the project's allow widened the person's")
	}
	testfs.File(t, filepath.Join(xdg, "aci", "settings.json"), `{"permissions": {"allow": ["bash:touch made.txt", 7]}}`)
	r = aci(t, dir, runScript(t, "touch made.txt"), "make it", env, "--permission-mode", "ask")
	if r.code != 0 || !strings.Contains(r.stderr, "permissions.allow[1]") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err != nil {
		t.Errorf("the person's allow did not apply:\n%s", r.stderr)
	}
}
