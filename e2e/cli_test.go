package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fmt"
	"html"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

// The key set once in ~/.config/aci/.env is found from any folder; a
// folder's .env still wins over it.
func TestKeySetOnceFromAnyFolder(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "from the person's file"}, fakeai.Reply{Content: "from the folder's .env"})
	home := t.TempDir()
	testfs.FileMode(t, filepath.Join(home, ".config", "aci", ".env"), "OPENAI_API_KEY="+testKey+"\nOPENAI_BASE_URL="+srv.URL+"\nOPENAI_MODEL=user-model\n", 0o600)
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
	testfs.FileMode(t, filepath.Join(other, ".env"), "OPENAI_API_KEY=sk-folder-key-0987654321\n", 0o600)
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

// TestPipeUnknownCommandIsUsageError: aci -p "/nosuch" is refused as the
// REPL refuses it (exit 2, naming it), a REPL command is named as one, and
// neither reaches the model; "/etc/hosts is wrong" is still a question.
func TestPipeUnknownCommandIsUsageError(t *testing.T) {
	work := t.TempDir()
	srv := fakeai.New(t, fakeai.Reply{Content: "it is fine"})
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir()}
	usageErrors(t, work, srv, env, map[string]string{
		"/nosuch do it": "unknown command /nosuch",
		"/help":         "/help is a command of the REPL",
	})
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("an unknown command reached the model (%d requests)", n)
	}
	if r := aci(t, work, srv, "", env, "-p", "/etc/hosts is wrong"); r.code != 0 || strings.TrimSpace(r.stdout) != "it is fine" {
		t.Errorf("a path question: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A flag-like word after -p is a usage error naming it, never a question
// sent to the model; after "--" it is the question.
func TestPFollowedByAFlagIsAUsageError(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "answered"})
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-p", "--verbose"},
		{"-p", "-q"},
		{"-p", "--bogus"},
		{"-p", "--level=3", "hi"},
	} {
		r := aci(t, dir, srv, "", nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, args[1]) {
			t.Errorf("aci %q: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "-p -- "+args[1]) {
			t.Errorf("aci %q: stderr does not say how to ask it: %q", args, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
	r := aci(t, dir, srv, "", nil, "-p", "--", "--verbose")
	if r.code != 0 || !strings.Contains(r.stdout, "answered") {
		t.Fatalf("aci -p -- --verbose: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !mentions(reqs[0], "--verbose") {
		t.Fatalf("the question was not --verbose: %+v", reqs)
	}
}

// TestBadSkillSaidOnce: a skill with a bad header is said at the first
// run, not at every one; once the file changes (and is still bad) it is
// said again.
func TestBadSkillSaidOnce(t *testing.T) {
	work, state := t.TempDir(), t.TempDir()
	skill := filepath.Join(work, ".aci", "skills", "broken", "SKILL.md")
	testfs.Write(t, work, 0o644, map[string]string{".aci/skills/broken/SKILL.md": "---\ndescription: no name here\n---\nx"})
	srv := fakeai.New(t)
	for range 3 {
		srv.Push(fakeai.Reply{Content: "ok"})
	}
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir(), "XDG_STATE_HOME=" + state}
	said := func() bool {
		r := aciOK(t, work, srv, "", env, "-p", "hi")
		return strings.Contains(r.stderr, "skill .aci/skills/broken/SKILL.md skipped")
	}
	if !said() {
		t.Fatal("the bad skill is not said at the first run")
	}
	if said() {
		t.Error("the bad skill is said again at the next run")
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(skill, later, later)
	if !said() {
		t.Error("the changed (still bad) skill is not said again")
	}
}

// A relative XDG_STATE_HOME is ignored, as the XDG specification says:
// transcripts do not land in the folder aci runs in (the workspace, which
// commands read), but in ~/.local/state/aci.
func TestRelativeXDGStateHomeIgnored(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t, fakeai.Reply{Content: "hello"})
	env := baseEnv(t, srv, "XDG_STATE_HOME=state", "XDG_CONFIG_HOME=conf")
	var home string
	for _, kv := range env {
		if v, ok := cutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	r := aciEnv(t, dir, env, "", "-p", "hi")
	if r.code != 0 || r.stdout != "hello\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, p := range []string{"state", "conf"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("aci made %s in the workspace", p)
		}
	}
	got, _ := filepath.Glob(filepath.Join(home, ".local", "state", "aci", "sessions", "*"))
	if len(got) == 0 {
		t.Errorf("no transcript under %s/.local/state/aci/sessions", home)
	}
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return "", false
}

// aciAdditions are words only the model's copy of the typed questions
// holds: plan mode's note, /fix-issue's prompt, /init's.
var aciAdditions = []string{"[aci:", "permission mode plan", "Fix issue #9", "Study this project"}

// A session is listed by what the person typed, though the model got
// aci's additions: plan mode's note, a command's expanded prompt, /init's.
// stream-json's lines carry none of them, and aci export shows each
// question as typed, in Markdown and in HTML.
func TestSessionsListWhatWasTyped(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + t.TempDir()}
	os.MkdirAll(filepath.Join(dir, ".aci", "commands"), 0o755)
	os.WriteFile(filepath.Join(dir, ".aci", "commands", "fix-issue.md"), []byte("---\ndescription: fix an issue\n---\nFix issue #$1 ($ARGUMENTS) with care."), 0o644)
	srv := fakeai.New(t, fakeai.Reply{Content: "1. read calc"}, fakeai.Reply{Content: "fixed"}, fakeai.Reply{Content: "wrote AGENTS.md"})
	for _, args := range [][]string{
		{"--permission-mode", "plan", "-p", "how would you fix calc?"},
		{"-p", "/fix-issue 9 low"},
		{"-p", "/init"},
	} {
		r := aci(t, dir, srv, "", env, append(args, "--output-format", "stream-json")...)
		if r.code != 0 {
			t.Fatalf("%q: %d %s", args, r.code, r.stderr)
		}
		lacksAdditions(t, fmt.Sprintf("%q stream-json", args), r.stdout)
	}
	reqs := srv.Requests()
	if !mentions(reqs[0], "[aci: permission mode plan") || !mentions(reqs[1], "Fix issue #9 (9 low) with care.") {
		t.Fatalf("the model did not get aci's additions: %+v", reqs)
	}
	r := aci(t, dir, srv, "", env, "--sessions")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 3 {
		t.Fatalf("--sessions: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for i, want := range []string{"/init", "/fix-issue 9 low", "how would you fix calc?"} {
		if f := strings.SplitN(lines[i], "1 turn", 2); len(f) != 2 || strings.TrimSpace(f[1]) != want {
			t.Errorf("row %d %q, want it to end %q", i, lines[i], want)
		}
	}
	lacksAdditions(t, "--sessions", r.stdout)
	for i, want := range []string{"/init", "/fix-issue 9 low", "how would you fix calc?"} {
		id := strings.Fields(lines[i])[0]
		for _, format := range []string{"md", "html"} {
			r := aci(t, dir, srv, "", env, "export", id, "--format", format)
			if r.code != 0 || !strings.Contains(r.stdout, html.EscapeString(want)) {
				t.Errorf("aci export %s --format %s: %d, lacks %q:\n%s%s", id, format, r.code, want, r.stdout, r.stderr)
			}
			lacksAdditions(t, "aci export --format "+format, r.stdout)
		}
	}
}

func lacksAdditions(t *testing.T, where, out string) {
	t.Helper()
	for _, a := range aciAdditions {
		if strings.Contains(out, a) {
			t.Errorf("%s shows aci's addition %q:\n%s", where, a, out)
		}
	}
}

// Two commands of one batch in the same bash window: the next request
// carries both outputs, also when the cache has expired by then and the
// history is rebased (ACI_CACHE_TTL=1 and a command that outlasts it).
func TestBatchOutputsReachModel(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		tail []fakeai.Call
	}{
		{"cache kept", nil, nil},
		{"cache expired", []string{"ACI_CACHE_TTL=1"}, []fakeai.Call{bashRun("sleep 1.5")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			batch := append([]fakeai.Call{
				bashRun("seq 1 400 | sed s/^/first-/"),
				bashRun("seq 1 400 | sed s/^/second-/"),
			}, tc.tail...)
			srv := fakeai.New(t,
				act(openBash),
				act(batch...),
				fakeai.Reply{Content: "both ran"},
			)
			r := aci(t, dir, srv, "", tc.env, "-p", "run both")
			if r.code != 0 || r.stdout != "both ran\n" {
				t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			next := reqs[2].Text()
			for _, want := range []string{"400 lines of output, shown in bash_1", "first-1\n", "first-400\n", "second-1\n", "second-400\n"} {
				if !strings.Contains(next, want) {
					t.Errorf("the request after the batch lacks %q", want)
				}
			}
		})
	}
}
