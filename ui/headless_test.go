package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/session"
)

// headlessRun answers one question through RunHeadless with a real agent,
// windows and client against srv, in pipe mode (denials without --yes).
func headlessRun(t *testing.T, srv *fakeai.Server, format OutputFormat, stdout *bytes.Buffer) (code int, stderr string) {
	t.Helper()
	return headlessRunWith(t, srv, format, stdout, nil)
}

// headlessRunWith lets tune change the client's and the agent's settings.
func headlessRunWith(t *testing.T, srv *fakeai.Server, format OutputFormat, stdout *bytes.Buffer, tune func(*session.ClientConfig, *session.AgentConfig)) (code int, stderr string) {
	t.Helper()
	dir := t.TempDir()
	var errb bytes.Buffer
	notices := NewNotices(&errb)
	h := NewHeadless(format, stdout)
	ccfg := session.ClientConfig{BaseURL: srv.URL, APIKey: "sk-test-secret", Model: "m", Stream: true, Notify: notices.Notify}
	acfg := session.AgentConfig{BasePrompt: "You are aci.", MaxSteps: 5}
	if tune != nil {
		tune(&ccfg, &acfg)
	}
	f := session.NewFactory(session.Config{Client: ccfg, Agent: acfg, SessionsDir: t.TempDir()})
	pipe := NewPipe(&errb)
	s, err := f.New(context.Background(), session.Options{Workdir: dir, Approver: PipeApprover(false, &errb),
		Events: func(ev session.Event) { pipe.Event(ev); h.Event(ev) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	h.Init(s.ID(), "m", dir)
	code = RunHeadless(context.Background(), s, "do it", h, &errb)
	return code, errb.String()
}

// kinds lists the objects' types, a run of text pieces as one, and the
// text of each run.
func kinds(objs []map[string]any) (types []string, texts []string) {
	for _, o := range objs {
		typ := o["type"].(string)
		if typ == "text" && len(types) > 0 && types[len(types)-1] == "text" {
			texts[len(texts)-1] += o["text"].(string)
			continue
		}
		types = append(types, typ)
		if typ == "text" {
			texts = append(texts, o["text"].(string))
		}
	}
	return types, texts
}

// lines parses stdout, one JSON object a line.
func lines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %v\n%q", err, l)
		}
		objs = append(objs, m)
	}
	return objs
}

func busyRun(t *testing.T) *fakeai.Server {
	outside := filepath.Join(t.TempDir(), "out.txt")
	return fakeai.New(t,
		fakeai.Reply{Status: 429, Header: map[string]string{"Retry-After": "0"}},
		fakeai.Reply{Content: "Writing it.\n" + fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": outside}},
			fakeai.Call{Window: "file_1", Action: "write", Params: map[string]any{"content": "x\n"}},
		), PromptTokens: 100, CompletionTokens: 10, CachedTokens: 40},
		fakeai.Reply{Content: "I could not write it: <it was denied>.", PromptTokens: 200, CompletionTokens: 20},
	)
}

func TestHeadlessStreamJSON(t *testing.T) {
	var out bytes.Buffer
	code, stderr := headlessRun(t, busyRun(t), FormatStreamJSON, &out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	all := lines(t, out.String())
	types, texts := kinds(all)
	// The words stream as they come, the answer's included.
	want := "init notice text tool_call tool_result tool_call tool_result text result"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("types:\n got %s\nwant %s\n%s", got, want, out.String())
	}
	if strings.TrimSpace(texts[0]) != "Writing it." || texts[1] != "I could not write it: <it was denied>." {
		t.Errorf("texts %q", texts)
	}
	var objs []map[string]any // one text object per run, as types
	for _, o := range all {
		if o["type"] == "text" && len(objs) > 0 && objs[len(objs)-1]["type"] == "text" {
			continue
		}
		objs = append(objs, o)
	}
	if o := objs[0]; o["session_id"] == "" || o["model"] != "m" || o["cwd"] == "" {
		t.Errorf("init %v", o)
	}
	if o := objs[1]; o["kind"] != "retry" || !strings.HasPrefix(o["text"].(string), "retrying in 0s (2/4): 429") {
		t.Errorf("notice %v", o)
	}
	if o := objs[3]; o["call_id"] == "" || o["window_id"] != "launcher" || o["action_id"] != "open" || o["params"].(map[string]any)["app"] != "file" {
		t.Errorf("tool_call %v", o)
	}
	if o := objs[4]; o["call_id"] != objs[3]["call_id"] || o["status"] != "ok" {
		t.Errorf("tool_result %v", o)
	}
	if o := objs[6]; o["status"] != "denied" || !strings.Contains(o["text"].(string), "--yes") {
		t.Errorf("denied result %v", o)
	}
	res := objs[8]
	if res["is_error"] != false || res["result"] != "I could not write it: <it was denied>." || res["session_id"] != all[0]["session_id"] {
		t.Errorf("result %v", res)
	}
	if _, ok := res["error"]; ok {
		t.Errorf("a successful result has an error field: %v", res)
	}
	if res["num_steps"] != 2.0 {
		t.Errorf("num_steps %v", res["num_steps"])
	}
	if u := res["usage"].(map[string]any); u["prompt_tokens"] != 300.0 || u["completion_tokens"] != 30.0 || u["cached_tokens"] != 40.0 {
		t.Errorf("usage %v", u)
	}
	d := res["denials"].([]any)
	if len(d) != 1 || d[0].(map[string]any)["window_id"] != "file_1" || d[0].(map[string]any)["action_id"] != "write" || d[0].(map[string]any)["reason"] == "" {
		t.Errorf("denials %v", d)
	}
	// Humans keep their progress on stderr.
	for _, w := range []string{"aci: retrying in 0s", "Writing it.", "denied by aci in pipe mode (no terminal to ask): ", "⊘ write ", "out.txt · denied: denied by aci"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
}

func TestHeadlessJSONIsOneObject(t *testing.T) {
	var out bytes.Buffer
	code, _ := headlessRun(t, busyRun(t), FormatJSON, &out)
	objs := lines(t, out.String())
	if code != ExitOK || len(objs) != 1 || objs[0]["type"] != "result" || len(objs[0]["denials"].([]any)) != 1 {
		t.Fatalf("exit %d, stdout:\n%s", code, out.String())
	}
	if objs[0]["duration_ms"].(float64) < 0 {
		t.Errorf("duration_ms %v", objs[0]["duration_ms"])
	}
}

func TestHeadlessError(t *testing.T) {
	for _, format := range []OutputFormat{FormatJSON, FormatStreamJSON} {
		var out bytes.Buffer
		code, stderr := headlessRun(t, fakeai.New(t, fakeai.Reply{Status: 401}), format, &out)
		objs := lines(t, out.String())
		res := objs[len(objs)-1]
		if code != ExitFailed || res["type"] != "result" || res["is_error"] != true {
			t.Fatalf("%s: exit %d, stdout:\n%s", format, code, out.String())
		}
		if res["error"] != "the API key was refused (401): check OPENAI_API_KEY" || res["result"] != "" || res["num_steps"] != 0.0 {
			t.Errorf("%s: result %v", format, res)
		}
		if _, ok := res["denials"].([]any); !ok {
			t.Errorf("%s: denials should be an empty list: %v", format, res["denials"])
		}
		if !strings.Contains(stderr, "aci: the API key was refused") || strings.Contains(out.String()+stderr, "sk-test-secret") {
			t.Errorf("%s: stderr:\n%s", format, stderr)
		}
	}
}

// Fallbacks and compression are notices too; the summary request counts
// as a step.
func TestHeadlessFallbackAndCompressionNotices(t *testing.T) {
	srv := fakeai.New(t)
	n := 0
	srv.Handle(func(req fakeai.Request) fakeai.Reply {
		if req.Model == "m" {
			return fakeai.Reply{Status: 404, ErrorCode: "model_not_found", ErrorMessage: "The model `m` does not exist"}
		}
		n++
		switch n {
		case 1:
			return fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": "a.txt"}}), PromptTokens: 5000}
		case 2:
			return fakeai.Reply{Content: "SUMMARY", PromptTokens: 5000, CompletionTokens: 100}
		}
		return fakeai.Reply{Content: "done", PromptTokens: 300}
	})
	var out bytes.Buffer
	code, stderr := headlessRunWith(t, srv, FormatStreamJSON, &out, func(c *session.ClientConfig, a *session.AgentConfig) {
		c.FallbackModels = []string{"backup"}
		a.CompressTokens = 1000
	})
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var kinds []string
	var res map[string]any
	for _, o := range lines(t, out.String()) {
		switch o["type"] {
		case "notice":
			kinds = append(kinds, o["kind"].(string)+": "+o["text"].(string))
		case "result":
			res = o
		}
	}
	want := []string{"fallback: falling back to model backup (m: 404 not found)", "compression: compressed 5000 → "}
	if len(kinds) != 2 || kinds[0] != want[0] || !strings.HasPrefix(kinds[1], want[1]) {
		t.Errorf("notices %q", kinds)
	}
	if res["num_steps"] != 3.0 || res["result"] != "done" {
		t.Errorf("result %v", res)
	}
}

func TestParseOutputFormat(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want OutputFormat
		ok   bool
	}{{"text", FormatText, true}, {"json", FormatJSON, true}, {"stream-json", FormatStreamJSON, true}, {"JSON", "", false}, {"", "", false}, {"xml", "", false}} {
		got, err := ParseOutputFormat(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseOutputFormat(%q) = %q, %v", tt.in, got, err)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestHeadlessWriteFailureFailsTheRun(t *testing.T) {
	h := NewHeadless(FormatJSON, failingWriter{})
	res := session.Result{Outcome: session.Answered, Answer: "answer"}
	h.Event(res)
	if err := h.finish(res); err == nil {
		t.Fatal("the result was written to a broken stdout")
	}
}
