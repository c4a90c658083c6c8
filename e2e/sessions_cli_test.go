package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

func TestFlagValidation(t *testing.T) {
	srv := fakeai.New(t)
	for _, tt := range []struct {
		name   string
		env    []string
		args   []string
		stderr string
	}{
		{name: "max steps 0", args: []string{"--max-steps", "0", "-p", "hi"}, stderr: "--max-steps must be at least 1, got 0"},
		{name: "max steps word", args: []string{"--max-steps", "lots", "-p", "hi"}, stderr: `--max-steps must be a whole number, got "lots"`},
		{name: "stream maybe", env: []string{"ACI_STREAM=maybe"}, args: []string{"-p", "hi"}, stderr: `ACI_STREAM must be 0 or 1, got "maybe"`},
		{name: "empty model", args: []string{"--model", "", "-p", "hi"}, stderr: "--model needs a model name"},
		{name: "stray argument", args: []string{"-p", "hi", "extra"}, stderr: `unexpected argument "extra"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := aci(t, t.TempDir(), srv, "", tt.env, tt.args...)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code != 2 || len(lines) != 1 || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", r.code, r.stderr, tt.stderr)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("bad usage made %d requests", n)
	}
}

func TestSessionsListAndResumeByID(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	srv := fakeai.New(t, fakeai.Reply{Content: "apple noted"}, fakeai.Reply{Content: "pear noted"}, fakeai.Reply{Content: "it was apple"}, fakeai.Reply{Content: "and again"})
	for _, q := range []string{"remember apple", "remember pear"} {
		if r := aci(t, dir, srv, "", env, "-p", q); r.code != 0 {
			t.Fatalf("%s: %d %s", q, r.code, r.stderr)
		}
	}
	// --sessions needs no key and lists newest first.
	r := aci(t, dir, srv, "", append(env, "OPENAI_API_KEY=", "OPENAI_BASE_URL=https://api.example.com/v1"), "--sessions")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.Contains(lines[0], "remember pear") || !strings.Contains(lines[1], "remember apple") {
		t.Fatalf("--sessions: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	row := regexp.MustCompile(`^(\d{8}-\d{6}-[0-9a-f]{8})\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+1 turn\s+remember apple$`)
	m := row.FindStringSubmatch(lines[1])
	if m == nil {
		t.Fatalf("row %q", lines[1])
	}
	// The older one, by id, both spellings.
	r = aci(t, dir, srv, "", env, "--resume", m[1], "-p", "which fruit first?")
	if r.code != 0 || !strings.Contains(r.stderr, "resumed "+m[1]) {
		t.Fatalf("--resume ID: %d %s", r.code, r.stderr)
	}
	last := srv.Requests()[2]
	if !mentions(last, "remember apple") || mentions(last, "remember pear") {
		t.Errorf("resumed the wrong session: %+v", last.Messages)
	}
	r = aci(t, dir, srv, "", env, "--resume="+m[1], "-p", "again?")
	if r.code != 0 || !strings.Contains(r.stderr, "resumed "+m[1]) {
		t.Fatalf("--resume=ID: %d %s", r.code, r.stderr)
	}
	r = aci(t, dir, srv, "", env, "--resume", "nosuch", "-p", "x")
	if r.code != 2 || !strings.Contains(r.stderr, `no session "nosuch"`) {
		t.Errorf("unknown id: %d %s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(state, "aci", "sessions", "*.jsonl"))
	if len(files) != 2 {
		t.Errorf("transcripts: %d, want 2", len(files))
	}
}

// mentions reports whether any message of a request contains text.
func mentions(req fakeai.Request, text string) bool {
	for _, m := range req.Messages {
		if strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}

func TestPipeProgressShowsTheWork(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "file", "target": "a.txt"}),
			call("file_1", "edit", map[string]any{"old_text": "old line", "new_text": "new line"}),
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "echo boom; exit 3"}),
		)},
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, dir, srv, "edit it", nil)
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"✓ open a.txt · ok: opened file_1", "    -old line\n    +new line\n",
		"✗ run echo boom; exit 3 · failed: exit 3", "    │ boom\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
