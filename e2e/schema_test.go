package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// personSchema is strict-fit: every object closed, every property required.
const personSchema = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
 "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
 "required": ["name", "age"], "additionalProperties": false}`

// schemaRun runs `aci -p … --output-schema` in a fresh folder holding the
// schema and returns the run and its result object (json output).
func schemaRun(t *testing.T, srv *fakeai.Server, format string, extra ...string) (runResult, map[string]any) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "person.schema.json")
	if err := os.WriteFile(path, []byte(personSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-p", "who wrote the first program?", "--output-schema", path, "--output-format", format}, extra...)
	r := aci(t, dir, srv, "", nil, args...)
	if format == "text" {
		return r, nil
	}
	objs := jsonLines(t, r.stdout)
	return r, objs[len(objs)-1]
}

// requestFormat is a request's response_format, nil when it has none.
func requestFormat(req fakeai.Request) map[string]any {
	f, _ := req.Raw["response_format"].(map[string]any)
	return f
}

func TestOutputSchemaValidAnswer(t *testing.T) {
	for _, format := range []string{"json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := fakeai.New(t, fakeai.Reply{Content: "```json\n{\"name\": \"Ada Lovelace\", \"age\": 36}\n```"})
			r, res := schemaRun(t, srv, format)
			if r.code != 0 || res["outcome"] != "answered" || res["is_error"] != false {
				t.Fatalf("exit %d result %v\nstderr %s", r.code, res, r.stderr)
			}
			want := map[string]any{"name": "Ada Lovelace", "age": float64(36)}
			if got, _ := res["structured_output"].(map[string]any); got == nil || got["name"] != want["name"] || got["age"] != want["age"] {
				t.Errorf("structured_output = %v, want %v", res["structured_output"], want)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || !strings.Contains(reqs[0].LastUser(), "<output_schema>") || !strings.Contains(reqs[0].LastUser(), `"minimum":0`) {
				t.Fatalf("the question does not carry the schema:\n%s", reqs[0].LastUser())
			}
			if requestFormat(reqs[0]) != nil {
				t.Errorf("the turn's first request asked for response_format: the model could not call its tools")
			}
		})
	}
	// Text output: the checked value alone on stdout, fence gone.
	srv := fakeai.New(t, fakeai.Reply{Content: "```json\n{\"name\": \"Ada\", \"age\": 36}\n```"})
	r, _ := schemaRun(t, srv, "text")
	if r.code != 0 || r.stdout != `{"name":"Ada","age":36}`+"\n" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
}

func TestOutputSchemaInvalidThenFixed(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: `Ada Lovelace wrote it: {"name": "Ada Lovelace"}`},
		fakeai.Reply{Content: `{"name": "Ada Lovelace", "age": 36}`},
	)
	r, res := schemaRun(t, srv, "json")
	if r.code != 0 || res["outcome"] != "answered" {
		t.Fatalf("exit %d result %v\nstderr %s", r.code, res, r.stderr)
	}
	if got, _ := res["structured_output"].(map[string]any); got == nil || got["age"] != float64(36) {
		t.Errorf("structured_output = %v", res["structured_output"])
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if !strings.Contains(reqs[1].LastUser(), "not JSON") {
		t.Errorf("the answer was not sent back with its errors:\n%s", reqs[1].LastUser())
	}
	// The request that asks for the answer alone asks for structured
	// output, in the shape of the OpenAI spec (the fake validates every
	// body against CreateChatCompletionRequest and answers 400 otherwise).
	for _, req := range reqs {
		if req.Invalid != nil {
			t.Errorf("request %d fails the spec: %v", req.N, req.Invalid)
		}
	}
	f := requestFormat(reqs[1])
	js, _ := f["json_schema"].(map[string]any)
	if f["type"] != "json_schema" || js["name"] != "person_schema" || js["strict"] != true {
		t.Fatalf("response_format = %v", f)
	}
	var schema map[string]any
	json.Unmarshal([]byte(personSchema), &schema)
	if got, _ := json.Marshal(js["schema"]); string(got) != mustJSON(schema) {
		t.Errorf("response_format's schema = %s, want the file's", got)
	}
	if !strings.Contains(r.stderr, "does not match the output schema") {
		t.Errorf("stderr does not say the answer was sent back:\n%s", r.stderr)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestOutputSchemaInvalidTwiceFails(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: `{"name": "Ada Lovelace"}`},
		fakeai.Reply{Content: `{"name": "Ada Lovelace", "age": -1}`},
	)
	r, res := schemaRun(t, srv, "json")
	msg, _ := res["error"].(string)
	if r.code != 1 || res["is_error"] != true || res["outcome"] != "failed" || !strings.Contains(msg, "does not match the output schema") || !strings.Contains(msg, "minimum") {
		t.Fatalf("exit %d result %v\nstderr %s", r.code, res, r.stderr)
	}
	if _, ok := res["structured_output"]; ok {
		t.Errorf("a failed run carries structured_output: %v", res)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (sent back once)", n)
	}
}

// A server that refuses response_format gets the request again without
// it, and the answer is still checked.
func TestOutputSchemaProviderWithoutStructuredOutput(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: `{"name": "Ada"}`},
		fakeai.Reply{Status: 400, ErrorMessage: "response_format of type json_schema is not supported with this model"},
		fakeai.Reply{Content: `{"name": "Ada", "age": 36}`},
	)
	r, res := schemaRun(t, srv, "json")
	if r.code != 0 || res["outcome"] != "answered" {
		t.Fatalf("exit %d result %v\nstderr %s", r.code, res, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || requestFormat(reqs[1]) == nil || requestFormat(reqs[2]) != nil {
		t.Fatalf("%d requests; response_format on the 2nd %v, on the 3rd %v", len(reqs), requestFormat(reqs[1]), requestFormat(reqs[min(2, len(reqs)-1)]))
	}
	if !strings.Contains(r.stderr, "does not take response_format") {
		t.Errorf("stderr does not say so:\n%s", r.stderr)
	}
}

func TestOutputSchemaBadFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ content, want string }{
		{`{"type": "strin"}`, "not a valid JSON Schema"},
		{`{"type": "object",`, "not JSON"},
		{`{"$ref": "https://example.com/x.json"}`, "must point inside the file"},
	} {
		path := filepath.Join(dir, "s.json")
		os.WriteFile(path, []byte(c.content), 0o644)
		srv := fakeai.New(t)
		r := aci(t, dir, srv, "", nil, "-p", "q", "--output-schema", path)
		if r.code != 2 || !strings.Contains(r.stderr, "--output-schema") || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d stderr %q", c.content, r.code, r.stderr)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("%d requests sent with a bad schema", n)
		}
	}
	r := aci(t, dir, nil, "", nil, "-p", "q", "--output-schema", filepath.Join(dir, "missing.json"))
	if r.code != 2 || !strings.Contains(r.stderr, "missing.json") {
		t.Errorf("missing file: exit %d stderr %q", r.code, r.stderr)
	}
}

// A secret in the JSON answer is removed from structured_output as from
// every other output, and the value stays JSON.
func TestOutputSchemaRedactsSecrets(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: `{"name": "` + testKey + `", "age": 1}`})
	r, res := schemaRun(t, srv, "json")
	got, _ := res["structured_output"].(map[string]any)
	if r.code != 0 || got == nil || got["name"] != "[REDACTED]" {
		t.Fatalf("exit %d result %v\nstderr %s", r.code, res, r.stderr)
	}
}
