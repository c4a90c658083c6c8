package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

func TestFixABug(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "calc"), 0o755)
	src := "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"
	os.WriteFile(filepath.Join(dir, "calc", "calc.go"), []byte(src), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Let me read it.\n" + fakeai.ToolCall(openFile("calc/calc.go"))},
		act(call("file_1", "view", map[string]any{"start_line": 3, "end_line": 6})),
		act(call("file_1", "edit", map[string]any{"old_text": "return a - b", "new_text": "return a + b"})),
		fakeai.Reply{Content: "Add subtracted instead of adding; it now returns a + b."},
	)
	r := aciOK(t, dir, srv, "what does calc.go do? fix its failing test", nil)
	if r.stdout != "Add subtracted instead of adding; it now returns a + b.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "calc", "calc.go"))
	if !strings.Contains(string(got), "return a + b") {
		t.Errorf("file not fixed:\n%s", got)
	}
	for _, want := range []string{"Let me read it.\n", "✓ open calc/calc.go · ok", "✓ read calc/calc.go from line 3 · ok", "✓ edit calc/calc.go · ok"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, req := range reqs {
		if req.APIKey() != testKey {
			t.Errorf("request %d: API key not sent", i)
		}
		msgs := req.Messages
		if msgs[0].Role != "system" || !strings.Contains(msgs[0].Content, "You are aci") || !strings.Contains(msgs[0].Content, "Working directory: "+dir) {
			t.Errorf("request %d: bad system message", i)
		}
		if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.Contains(last.Content, "\n\n<windows>\n<window id=") {
			t.Errorf("request %d: last message carries no windows block: %.100q", i, last.Content)
		}
		if i == 0 && !strings.Contains(msgs[1].Content, "<windows>\n<window id=\"launcher\" app=\"launcher\" title=\"Launcher\">") {
			t.Errorf("the first request does not show the launcher")
		}
		if i > 0 {
			// Append-only: every message of the previous request is repeated.
			prev := reqs[i-1].Messages
			for j := 0; j < len(prev); j++ {
				if msgs[j] != prev[j] {
					t.Errorf("request %d: message %d differs from the previous request's: the prefix is not stable", i, j)
				}
			}
		}
	}
	// The second request carries the open result and shows the file.
	second := reqs[1].Messages
	results := second[len(second)-1].Content
	if !strings.Contains(results, `<result call_id="call_1_1" window_id="launcher" action_id="open" status="ok">opened file_1</result>`) {
		t.Errorf("tool results:\n%s", results)
	}
	if win := second[len(second)-1].Content; !strings.Contains(win, `<window id="file_1" app="file" title="calc/calc.go">`) || !strings.Contains(win, "5\t\treturn a - b") {
		t.Errorf("windows block:\n%s", win)
	}
}

func TestBatchAndSingleObjectForm(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	srv := fakeai.New(t,
		act(
			openFile("a.txt"),
			openFile("b.txt"),
			call("file_2", "write", map[string]any{"content": "beta\n"}),
			call("file_1", "edit", map[string]any{"old_text": "alpha", "new_text": "ALPHA"}),
		),
		fakeai.Reply{Content: `<tool_call>{"window_id":"file_2","action_id":"close"}</tool_call>`},
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, dir, srv, "", nil, "-p", "make the files")
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	b, _ := os.ReadFile(filepath.Join(dir, "b.txt"))
	if string(a) != "ALPHA\n" || string(b) != "beta\n" {
		t.Errorf("a=%q b=%q", a, b)
	}
	reqs := srv.Requests()
	res := reqs[1].Last()
	for _, id := range []string{"call_1_1", "call_1_2", "call_1_3", "call_1_4"} {
		if !strings.Contains(res, `call_id="`+id+`"`) {
			t.Errorf("results lack %s:\n%s", id, res)
		}
	}
	res = reqs[2].Last()
	if !strings.Contains(res, `<result call_id="call_2_1" window_id="file_2" action_id="close" status="ok">closed file_2</result>`) {
		t.Errorf("single-object result:\n%s", res)
	}
}

func TestBadCallsGiveErrorResults(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t,
		fakeai.Reply{Content: "<tool_call>{\"calls\":[{\"window_id\":\"launcher\",}]}</tool_call>"},
		act(
			call("bash_9", "run", map[string]any{"command": "ls"}),
			call("launcher", "explode", nil),
			call("launcher", "open", map[string]any{"target": "x"}),
		),
		fakeai.Reply{Content: "recovered"},
	)
	r := aci(t, dir, srv, "go", nil)
	if r.code != 0 || r.stdout != "recovered\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	first := reqs[1].Last()
	if !strings.Contains(first, `status="error">malformed JSON in &lt;tool_call&gt; block 1 at offset`) && !strings.Contains(first, `status="error">malformed JSON in <tool_call> block 1 at offset`) {
		t.Errorf("malformed JSON result:\n%s", first)
	}
	second := reqs[2].Last()
	for _, want := range []string{
		`window_id="bash_9" action_id="run" status="error">no window "bash_9"; open windows: launcher</result>`,
		`action_id="explode" status="error">window launcher has no action "explode"; its actions: open</result>`,
		`status="error">missing required parameter "app" (string) for open</result>`,
	} {
		if !strings.Contains(second, want) {
			t.Errorf("results lack %q:\n%s", want, second)
		}
	}
}

func TestStepLimit(t *testing.T) {
	srv := fakeai.New(t)
	srv.Handle(func(fakeai.Request) fakeai.Reply {
		return act(openFile("x"))
	})
	r := aci(t, t.TempDir(), srv, "loop", nil, "--max-steps", "3")
	if r.code != 1 || !strings.Contains(r.stderr, "step limit reached: 3 model calls") || r.stdout != "" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestExitCodesAndConfig(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Status: 400, ErrorMessage: "boom"})
	tests := []struct {
		name   string
		env    []string
		args   []string
		stdin  string
		code   int
		stderr string
		stdout string
	}{
		{name: "missing key", env: []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL=https://api.example.com/v1"}, stdin: "hi", code: 2, stderr: "OPENAI_API_KEY is not set"},
		{name: "bad flag", args: []string{"--frobnicate"}, code: 2, stderr: "unknown flag --frobnicate"},
		{name: "bad max steps", env: []string{"ACI_MAX_STEPS=many"}, stdin: "hi", code: 2, stderr: "ACI_MAX_STEPS must be a whole number"},
		{name: "no question", stdin: "  \n", code: 2, stderr: "no question"},
		{name: "version", args: []string{"--version"}, code: 0, stdout: "aci "},
		{name: "help", args: []string{"--help"}, code: 0, stdout: "Usage:"},
		{name: "api error", stdin: "hi", code: 1, stderr: "API error 400: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := aci(t, t.TempDir(), srv, tt.stdin, tt.env, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) || !strings.Contains(r.stdout, tt.stdout) {
				t.Errorf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
		})
	}
}

func TestLocalEndpointNeedsNoKeyAndStreamOff(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "plain answer"})
	r := aci(t, t.TempDir(), srv, "", []string{"OPENAI_API_KEY=", "ACI_STREAM=0"}, "-p", "q")
	if r.code != 0 || r.stdout != "plain answer\n" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	req := srv.Requests()[0]
	if req.Stream || req.Header.Get("Authorization") != "" {
		t.Errorf("stream=%v auth=%q", req.Stream, req.Header.Get("Authorization"))
	}
}

func TestStreamingAsksForUsageAndPromptTakesStdin(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "ok"})
	aciOK(t, t.TempDir(), srv, "some piped context", nil, "-p", "summarize this", "--model", "other-model")
	req := srv.Requests()[0]
	if !req.Stream || !req.IncludeUsage() || req.Model != "other-model" {
		t.Errorf("stream=%v usage=%v model=%s", req.Stream, req.IncludeUsage(), req.Model)
	}
	q := req.Messages[1].Content
	if !strings.HasPrefix(q, "summarize this") || !strings.Contains(q, "<stdin>\nsome piped context\n</stdin>") {
		t.Errorf("question = %q", q)
	}
}

// SIGINT mid-request ends aci with 130; the json form still writes its
// one result object, saying so.
func TestSigintExits130(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			srv := fakeai.New(t, fakeai.Reply{Hang: true})
			r := start(t, t.TempDir(), baseEnv(t, srv), "-p", "wait forever", "--output-format", format)
			srv.WaitRequests(1, 10*time.Second)
			r.signal(syscall.SIGINT)
			if code := r.exited(t, 30*time.Second); code != 130 {
				t.Fatalf("exit %d, stderr %q", code, r.stderr)
			}
			if format != "json" {
				return
			}
			objs := jsonLines(t, r.stdout.String())
			if res := objs[0]; len(objs) != 1 || res["is_error"] != true || res["error"] != "interrupted" {
				t.Errorf("stdout:\n%s", r.stdout)
			}
		})
	}
}
