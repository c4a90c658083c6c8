package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
)

// jsonLines parses stdout: every line must be one JSON object.
func jsonLines(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	if !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("stdout does not end a line: %q", stdout)
	}
	var objs []map[string]any
	for i, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line %d is not a JSON object: %v\n%q", i+1, err, l)
		}
		objs = append(objs, m)
	}
	return objs
}

// joinText makes each run of text objects one, their pieces joined: the
// model's words stream in pieces.
func joinText(objs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, o := range objs {
		if o["type"] == "text" && len(out) > 0 && out[len(out)-1]["type"] == "text" {
			out[len(out)-1]["text"] = out[len(out)-1]["text"].(string) + o["text"].(string)
			continue
		}
		out = append(out, o)
	}
	return out
}

// headlessReplies read a file, try a write outside the workspace (denied
// without --yes) and answer.
func headlessReplies(t *testing.T, dir string) *fakeai.Server {
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644)
	outside := filepath.Join(t.TempDir(), "out.txt")
	return fakeai.New(t,
		fakeai.Reply{Content: "Reading the notes.\n" + fakeai.ToolCall(openFile("notes.txt")), PromptTokens: 1000, CompletionTokens: 50, CachedTokens: 600},
		fakeai.Reply{Content: fakeai.ToolCall(
			openFile(outside),
			call("file_2", "write", map[string]any{"content": "x\n"}),
		), PromptTokens: 1200, CompletionTokens: 60},
		fakeai.Reply{Content: "The notes say hello; writing outside was denied.", PromptTokens: 1400, CompletionTokens: 70, CachedTokens: 1000},
	)
}

// checkResult checks the fields every result object has.
func checkResult(t *testing.T, res map[string]any, sessionID string) {
	t.Helper()
	for _, k := range []string{"type", "is_error", "result", "session_id", "num_steps", "duration_ms", "usage", "denials"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result lacks %q: %v", k, res)
		}
	}
	if res["type"] != "result" || res["session_id"] != sessionID {
		t.Errorf("result %v, want session %q", res, sessionID)
	}
}

// onlySession returns the stem of the one transcript under state.
func onlySession(t *testing.T, state string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(state, "aci", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("%d transcripts, want 1: %v", len(files), files)
	}
	return strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")
}

func TestOutputFormatJSON(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	srv := headlessReplies(t, dir)
	r := aciOK(t, dir, srv, "", []string{"XDG_STATE_HOME=" + state}, "-p", "what do the notes say?", "--output-format", "json")
	objs := jsonLines(t, r.stdout)
	if len(objs) != 1 {
		t.Fatalf("%d objects on stdout, want 1:\n%s", len(objs), r.stdout)
	}
	res := objs[0]
	checkResult(t, res, onlySession(t, state))
	if res["is_error"] != false || res["result"] != "The notes say hello; writing outside was denied." || res["num_steps"] != 3.0 {
		t.Errorf("result %v", res)
	}
	if u := res["usage"].(map[string]any); u["prompt_tokens"] != 3600.0 || u["completion_tokens"] != 180.0 || u["cached_tokens"] != 1600.0 {
		t.Errorf("usage %v", u)
	}
	denials := res["denials"].([]any)
	if len(denials) != 1 {
		t.Fatalf("denials %v", denials)
	}
	if d := denials[0].(map[string]any); d["window_id"] != "file_2" || d["action_id"] != "write" || !strings.Contains(d["reason"].(string), "writes outside the workspace") {
		t.Errorf("denial %v", d)
	}
	// stderr stays for humans.
	for _, want := range []string{"Reading the notes.", "denied by aci in pipe mode (no terminal to ask): ", "⊘ write ", "out.txt · denied"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

func TestOutputFormatStreamJSON(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	srv := headlessReplies(t, dir)
	r := aciOK(t, dir, srv, "what do the notes say?", []string{"XDG_STATE_HOME=" + state}, "--output-format", "stream-json")
	objs := joinText(jsonLines(t, r.stdout))
	var types []string
	for _, o := range objs {
		types = append(types, o["type"].(string))
	}
	// The words stream as they come, the answer's too (it is also the result).
	want := "init text tool_call tool_result tool_call tool_result tool_call tool_result text result"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	id := onlySession(t, state)
	if o := objs[0]; o["session_id"] != id || o["model"] != "test-model" || o["cwd"] != dir {
		t.Errorf("init %v, want session %s, cwd %s", o, id, dir)
	}
	if strings.TrimSpace(objs[1]["text"].(string)) != "Reading the notes." || objs[8]["text"] != "The notes say hello; writing outside was denied." {
		t.Errorf("texts %v, %v", objs[1], objs[8])
	}
	for i := 2; i < 8; i += 2 {
		c, res := objs[i], objs[i+1]
		if c["call_id"] == nil || c["call_id"] == "" || c["call_id"] != res["call_id"] || c["params"] == nil {
			t.Errorf("call %v / result %v", c, res)
		}
	}
	if objs[7]["status"] != "denied" {
		t.Errorf("the write's result %v", objs[7])
	}
	res := objs[len(objs)-1]
	checkResult(t, res, id)
	if len(res["denials"].([]any)) != 1 || res["num_steps"] != 3.0 {
		t.Errorf("result %v", res)
	}
}

// A script reads what a command printed and what an edit changed from
// tool_result's output; a result with neither has no output field.
func TestOutputFormatStreamJSONOutputs(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "greet.txt"), []byte("hello\n"), 0o644)
	srv := fakeai.New(t,
		act(
			openBash,
			bashRun("printf 'one\\ntwo\\n'"),
			openFile("greet.txt"),
			call("file_1", "edit", map[string]any{"old_text": "hello", "new_text": "goodbye"}),
		),
		fakeai.Reply{Content: "done"},
	)
	r := aciOK(t, dir, srv, "", nil, "-p", "go", "--yes", "--output-format", "stream-json")
	var results []map[string]any
	for _, o := range jsonLines(t, r.stdout) {
		if o["type"] == "tool_result" {
			results = append(results, o)
		}
	}
	if len(results) != 4 {
		t.Fatalf("%d tool_results, want 4:\n%s", len(results), r.stdout)
	}
	for _, i := range []int{0, 2} {
		if _, ok := results[i]["output"]; ok {
			t.Errorf("opening a window has an output: %v", results[i])
		}
	}
	if got := results[1]["output"]; got != "one\ntwo" {
		t.Errorf("the command's output %q, want \"one\\ntwo\"", got)
	}
	diff, _ := results[3]["output"].(string)
	if !strings.Contains(diff, "-hello") || !strings.Contains(diff, "+goodbye") || !strings.Contains(diff, "@@") {
		t.Errorf("the edit's output is not its diff: %q\n%s", diff, r.stdout)
	}
}

func TestOutputFormatStreamJSONNotices(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t,
		fakeai.Reply{Status: 503, ErrorMessage: "Loading model", Header: map[string]string{"Retry-After": "0"}},
		fakeai.Reply{Content: "ready now"},
	)
	r := aci(t, dir, srv, "", nil, "-p", "hi", "--output-format", "stream-json")
	objs := joinText(jsonLines(t, r.stdout))
	if r.code != 0 || len(objs) != 4 || objs[2]["text"] != "ready now" {
		t.Fatalf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
	if n := objs[1]; n["type"] != "notice" || n["kind"] != "retry" || !strings.Contains(n["text"].(string), "503") {
		t.Errorf("notice %v", n)
	}
	if !strings.Contains(r.stderr, "aci: retrying in 0s (2/4)") {
		t.Errorf("stderr lacks the retry:\n%s", r.stderr)
	}
}

func TestOutputFormatError(t *testing.T) {
	for _, format := range []string{"json", "stream-json"} {
		dir := t.TempDir()
		srv := fakeai.New(t, fakeai.Reply{Status: 401})
		r := aci(t, dir, srv, "", nil, "-p", "hi", "--output-format", format)
		if r.code != 1 {
			t.Fatalf("%s: exit %d, want 1; stderr:\n%s", format, r.code, r.stderr)
		}
		objs := jsonLines(t, r.stdout)
		res := objs[len(objs)-1]
		if res["type"] != "result" || res["is_error"] != true || res["error"] != "the API key was refused (401): check OPENAI_API_KEY" {
			t.Errorf("%s: result %v", format, res)
		}
		if _, ok := res["usage"].(map[string]any); !ok || res["result"] != "" {
			t.Errorf("%s: the other fields should still be there: %v", format, res)
		}
		if !strings.Contains(r.stderr, "aci: the API key was refused") {
			t.Errorf("%s: stderr:\n%s", format, r.stderr)
		}
	}
}

func TestOutputFormatText(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "plain answer"})
	r := aci(t, t.TempDir(), srv, "", nil, "-p", "hi", "--output-format", "text")
	if r.code != 0 || r.stdout != "plain answer\n" {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestOutputFormatBadValue(t *testing.T) {
	r := aci(t, t.TempDir(), nil, "", nil, "-p", "hi", "--output-format", "xml")
	if r.code != 2 || r.stdout != "" {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	if r.stderr != "aci: --output-format must be text, json or stream-json, got \"xml\"\n" {
		t.Errorf("stderr %q", r.stderr)
	}
}

// stream-json read line by line as it comes, each line with the time it
// arrived: a slow command's output arrives while it runs, in pieces spread
// over its run, all before its tool_result, and the pieces join to its
// output.
func TestStreamJSONOutputAsItRuns(t *testing.T) {
	dir := t.TempDir()
	const slow = "for i in 1 2 3 4 5; do echo tick-$i; sleep 1; done"
	srv := fakeai.New(t,
		act(openBash, bashRun(slow)),
		fakeai.Reply{Content: "counted"},
	)
	cmd := testbin.Command(t, dir, baseEnv(t, srv), "--output-format", "stream-json", "-p", "count")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type line struct {
		obj map[string]any
		at  time.Time
	}
	var lines []line
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		lines = append(lines, line{m, time.Now()})
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("aci: %v", err)
	}
	var joined strings.Builder
	var outputs []line
	var call string
	var result time.Time
	for _, l := range lines {
		switch l.obj["type"] {
		case "tool_call":
			if l.obj["window_id"] == "bash_1" {
				call = l.obj["call_id"].(string)
			}
		case "output":
			if l.obj["call_id"] != call || l.obj["window_id"] != "bash_1" {
				t.Errorf("output %v, want call %s", l.obj, call)
			}
			if !result.IsZero() {
				t.Errorf("output after the tool_result: %v", l.obj)
			}
			outputs = append(outputs, l)
			joined.WriteString(l.obj["text"].(string))
		case "tool_result":
			if l.obj["call_id"] == call {
				result = l.at
			}
		}
	}
	if joined.String() != "tick-1\ntick-2\ntick-3\ntick-4\ntick-5\n" {
		t.Errorf("the pieces join to %q", joined.String())
	}
	if len(outputs) < 4 {
		t.Fatalf("%d output lines, want one per tick or so", len(outputs))
	}
	first, last := outputs[0].at, outputs[len(outputs)-1].at
	if result.Sub(first) < 3*time.Second || last.Sub(first) < 3*time.Second {
		t.Errorf("the output did not come as it ran: first %s before the result, spread over %s", result.Sub(first), last.Sub(first))
	}
	for i, o := range outputs {
		t.Logf("output %d at +%s: %q", i, o.at.Sub(first).Round(time.Millisecond), o.obj["text"])
	}
}
