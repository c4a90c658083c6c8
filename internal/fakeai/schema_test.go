package fakeai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestSchemasUpToDate regenerates the schema file from the shared spec and
// requires the committed copy to match, so the two never drift.
func TestSchemasUpToDate(t *testing.T) {
	spec := FindSharedSpec(".")
	if spec == "" {
		t.Skip(SharedSpecPath + " not found above the working directory")
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := GenerateSchemas(data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gen, chatSchemas) {
		t.Errorf("testdata/chat_schemas.json is stale; run: go generate ./internal/fakeai/")
	}
}

func TestNullableRewrite(t *testing.T) {
	spec := `{"info":{"version":"x"},"components":{"schemas":{
	 "CreateChatCompletionRequest":{"type":"object","description":"d","properties":{
	  "a":{"type":"string","nullable":true},
	  "b":{"type":"string","enum":["x"],"nullable":true},
	  "c":{"$ref":"#/components/schemas/Leaf","nullable":true},
	  "description":{"type":"integer","example":{"nullable":true}}}},
	 "CreateChatCompletionResponse":{"oneOf":[{"type":"string"}],"nullable":true},
	 "CreateChatCompletionStreamResponse":{"type":"object","x-oaiMeta":{}},
	 "ErrorResponse":{"type":"object"},
	 "Leaf":{"type":"integer"},
	 "Unused":{"type":"integer"}}}}`
	gen, err := GenerateSchemas([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct{ Schemas map[string]any }
	}
	if err := json.Unmarshal(gen, &doc); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(doc.Components.Schemas)
	want := `{"CreateChatCompletionRequest":{"properties":{` +
		`"a":{"type":["string","null"]},` +
		`"b":{"enum":["x",null],"type":["string","null"]},` +
		`"c":{"anyOf":[{"$ref":"#/components/schemas/Leaf"},{"type":"null"}]},` +
		`"description":{"type":"integer"}},"type":"object"},` +
		`"CreateChatCompletionResponse":{"anyOf":[{"oneOf":[{"type":"string"}]},{"type":"null"}]},` +
		`"CreateChatCompletionStreamResponse":{"type":"object"},` +
		`"ErrorResponse":{"type":"object"},"Leaf":{"type":"integer"}}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestValidateRequest(t *testing.T) {
	ok := `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true},"temperature":null}`
	if err := ValidateRequest([]byte(ok)); err != nil {
		t.Errorf("valid request rejected: %v", err)
	}
	for name, body := range map[string]string{
		"messages not array": `{"model":"m","messages":"nope"}`,
		"temperature string": `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":"hot"}`,
		"no messages":        `{"model":"m","messages":[]}`,
		"bad role":           `{"model":"m","messages":[{"role":"wizard","content":"hi"}]}`,
		"misspelt field":     `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_token":5}`,
		"not JSON":           `{"model":`,
	} {
		if err := ValidateRequest([]byte(body)); err == nil {
			t.Errorf("%s: accepted %s", name, body)
		}
	}
}

func TestValidateReplies(t *testing.T) {
	chunk := `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":%s}]}`
	for _, fr := range []string{"null", `"stop"`} {
		if err := ValidateStreamChunk(fmt.Appendf(nil, chunk, fr)); err != nil {
			t.Errorf("finish_reason %s rejected: %v", fr, err)
		}
	}
	if err := ValidateStreamChunk(fmt.Appendf(nil, chunk, `"bogus"`)); err == nil {
		t.Error(`finish_reason "bogus" accepted`)
	}
	resp := `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"x","refusal":null},"logprobs":null,"finish_reason":"stop"}]}`
	if err := ValidateResponse([]byte(resp)); err != nil {
		t.Errorf("valid response rejected: %v", err)
	}
	if err := ValidateResponse([]byte(strings.Replace(resp, `,"refusal":null`, "", 1))); err == nil {
		t.Error("message without refusal accepted")
	}
	if err := ValidateErrorBody([]byte(`{"error":{"message":"m","type":"t","param":null,"code":null}}`)); err != nil {
		t.Errorf("valid error rejected: %v", err)
	}
	if err := ValidateErrorBody([]byte(`{"error":{"message":"m"}}`)); err == nil {
		t.Error("incomplete error body accepted")
	}
}

// recorder stands in for the test's T so the fake's complaints can be
// asserted instead of failing this test.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) joined() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

func TestServerReportsViolations(t *testing.T) {
	rec := &recorder{TB: t}
	srv := New(rec, Reply{Content: "should not be used"})
	resp, _ := post(t, srv.URL+"/chat/completions", `{"model":"m","messages":"nope"}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("invalid request got %d, want 400", resp.StatusCode)
	}
	if got := rec.joined(); !strings.Contains(got, "request #1") || !strings.Contains(got, "violates") {
		t.Errorf("violation not reported: %q", got)
	}
	if srv.Requests()[0].Invalid == nil || srv.Remaining() != 1 {
		t.Error("invalid request should be recorded as such and not consume a reply")
	}
}

func TestServerReportsUnexpected(t *testing.T) {
	rec := &recorder{TB: t}
	srv := New(rec)
	resp, body := post(t, srv.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != 500 || ValidateErrorBody([]byte(body)) != nil {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, srv.URL+"/models", `{}`)
	if resp.StatusCode != 404 || ValidateErrorBody([]byte(body)) != nil {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}
	got := rec.joined()
	if !strings.Contains(got, "unexpected request #1") || !strings.Contains(got, "unexpected POST /v1/models") {
		t.Errorf("not reported: %q", got)
	}
}

// TestServerValidatesOwnReplies: a scripted reply the real API could not
// send is reported rather than silently taught to the client.
func TestServerValidatesOwnReplies(t *testing.T) {
	rec := &recorder{TB: t}
	srv := New(rec, Reply{Content: "x", FinishReason: "bogus"}, Reply{Content: "x", FinishReason: "bogus"})
	post(t, srv.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	post(t, srv.URL+"/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	got := rec.joined()
	if !strings.Contains(got, "own reply to request #1") || !strings.Contains(got, "own stream chunk for request #2") {
		t.Errorf("not reported: %q", got)
	}
}
