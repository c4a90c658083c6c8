package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
	"github.com/aci-dev/aci/internal/testutil"
)

// A key goes only where the person sent it (docs/protocol.md §2 "Endpoints and
// keys"): the real binary, loopback servers standing in for the person's
// endpoint and the one a cloned repository names.

// sawKey reports whether any request srv received carried key.
func sawKey(srv *fakeai.Server, key string) bool {
	for _, r := range srv.Requests() {
		if strings.Contains(r.Header.Get("Authorization"), key) {
			return true
		}
	}
	return false
}

// A workspace .env naming only another base URL gets no key: not the one
// in the person's own file, not the one in the environment. aci refuses,
// naming the file and the variable, exit 2; stream-json carries it as a
// notice.
func TestWorkspaceEndpointGetsNoPersonKey(t *testing.T) {
	elsewhere := fakeai.New(t, fakeai.Reply{Content: "stolen"})
	for _, tc := range []struct {
		name    string
		keyFile bool // the key in ~/.config/aci/.env, else in the environment
		format  string
	}{
		{name: "key in the person's file", keyFile: true},
		{name: "key in the environment"},
		{name: "stream-json", format: "stream-json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, dir := t.TempDir(), t.TempDir()
			testfs.FileMode(t, filepath.Join(dir, ".env"), "OPENAI_BASE_URL="+elsewhere.URL+"\n", 0o600)
			env := testutil.ChildEnv(home, "", testKey)
			if tc.keyFile {
				testfs.FileMode(t, filepath.Join(home, ".config", "aci", ".env"), "OPENAI_API_KEY="+testKey+"\n", 0o600)
				env = testutil.ChildEnv(home, "", "")
			}
			args := []string{"-p", "hi"}
			if tc.format != "" {
				args = append(args, "--output-format", tc.format)
			}
			r := aciEnv(t, dir, env, "", args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\nstderr:\n%s", r.code, r.stderr)
			}
			for _, want := range []string{"OPENAI_BASE_URL", filepath.Join(dir, ".env"), elsewhere.URL, "refused"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr does not name %q:\n%s", want, r.stderr)
				}
			}
			if tc.keyFile && !strings.Contains(r.stderr, filepath.Join("~", ".config", "aci", ".env")) {
				t.Errorf("stderr does not say the key is from the person's file:\n%s", r.stderr)
			}
			if tc.format == "stream-json" {
				var n struct{ Type, Kind, Text string }
				if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &n); err != nil || n.Type != "notice" || !strings.Contains(n.Text, elsewhere.URL) {
					t.Errorf("stream-json: want one notice naming the endpoint, got %q (%v)", r.stdout, err)
				}
			}
			if sawKey(elsewhere, testKey) || len(elsewhere.Requests()) > 0 {
				t.Fatalf("the workspace's endpoint was sent %d requests", len(elsewhere.Requests()))
			}
		})
	}
}

// With its own key in the same file the workspace's endpoint works, and
// gets that key: not the person's, even where the environment holds one
// (which would otherwise win).
func TestWorkspaceEndpointWithItsOwnKey(t *testing.T) {
	elsewhere := fakeai.New(t, fakeai.Reply{Content: "fine"})
	home, dir := t.TempDir(), t.TempDir()
	const own = "sk-workspace-own-key-5566"
	testfs.FileMode(t, filepath.Join(dir, ".env"), "OPENAI_BASE_URL="+elsewhere.URL+"\nOPENAI_API_KEY="+own+"\n", 0o600)
	r := aciEnv(t, dir, testutil.ChildEnv(home, "", testKey), "", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "fine") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if sawKey(elsewhere, testKey) {
		t.Fatal("the person's key went to the workspace's endpoint")
	}
	if !sawKey(elsewhere, own) {
		t.Error("the workspace's own key was not used")
	}
}

// A folder trusted with a question that named the endpoint works: the
// page (aci serve) asks, naming it; after yes, pipe mode sends the key
// there. A changed endpoint is refused again; --trust never covers one.
func TestTrustedFolderNamesTheEndpoint(t *testing.T) {
	elsewhere := fakeai.New(t, fakeai.Reply{Content: "trusted answer"})
	xdg, dir := t.TempDir(), t.TempDir()
	testfs.FileMode(t, filepath.Join(dir, ".env"), "OPENAI_BASE_URL="+elsewhere.URL+"\n", 0o600)
	cfg := "XDG_CONFIG_HOME=" + xdg

	s := startServe(t, dir, nil, []string{cfg})
	var created map[string]any
	if code := s.do(t, "POST", "/api/sessions", `{}`, &created); code < 400 || !strings.Contains(strings.ToLower(asText(created)), "openai_base_url") {
		t.Errorf("untrusted: a session was made (%d %v)", code, created)
	}
	var info struct {
		Lines   []string `json:"lines"`
		Trusted bool     `json:"trusted"`
	}
	s.do(t, "GET", "/api/trust", "", &info)
	if info.Trusted || !strings.Contains(strings.Join(info.Lines, "\n"), "endpoint "+elsewhere.URL) {
		t.Fatalf("the page's question does not name the endpoint: %+v", info)
	}
	if code := s.do(t, "POST", "/api/trust", `{"trust": true}`, nil); code != 200 {
		t.Fatalf("trust: %d", code)
	}
	if code := s.do(t, "POST", "/api/sessions", `{}`, &created); code != 201 {
		t.Errorf("trusted: no session (%d %v)", code, created)
	}
	if len(elsewhere.Requests()) > 0 {
		t.Error("the endpoint was asked before any question")
	}

	env := append(baseEnv(t, nil, cfg), "OPENAI_BASE_URL=")
	r := aciEnv(t, dir, env, "", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "trusted answer") || !sawKey(elsewhere, testKey) {
		t.Fatalf("trusted folder: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}

	other := fakeai.New(t, fakeai.Reply{Content: "stolen"})
	testfs.FileMode(t, filepath.Join(dir, ".env"), "OPENAI_BASE_URL="+other.URL+"\n", 0o600)
	for _, args := range [][]string{{"-p", "hi"}, {"-p", "hi", "--trust"}} {
		r = aciEnv(t, dir, env, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, other.URL) {
			t.Errorf("%v: a changed endpoint: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	if len(other.Requests()) > 0 {
		t.Error("the changed endpoint got requests")
	}
}

func asText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The environment's and the person's own endpoints are theirs: a key in
// the person's file goes to a base URL in the person's file.
func TestPersonsEndpointKeepsWorking(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "mine"})
	home, dir := t.TempDir(), t.TempDir()
	testfs.FileMode(t, filepath.Join(home, ".config", "aci", ".env"), "OPENAI_API_KEY="+testKey+"\nOPENAI_BASE_URL="+srv.URL+"\n", 0o600)
	testfs.FileMode(t, filepath.Join(dir, ".env"), "OPENAI_MODEL=test-model\n", 0o600)
	r := aciEnv(t, dir, testutil.ChildEnv(home, "", ""), "", "-p", "hi")
	if r.code != 0 || !sawKey(srv, testKey) {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".env")); err != nil {
		t.Fatal(err)
	}
}

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
