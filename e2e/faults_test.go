package e2e

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// End-to-end model-API faults: the real binary in pipe mode against a
// misbehaving fake server.

func TestE2ERateLimitedThenAnswers(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}},
		fakeai.Reply{Content: "answer after the wait"},
	)
	r := aci(t, t.TempDir(), srv, "hi", nil)
	if r.code != 0 || r.stdout != "answer after the wait\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "aci: retrying in 1s (2/4): 429 rate limited\n") {
		t.Errorf("stderr lacks the retry line:\n%s", r.stderr)
	}
}

func TestE2EServerErrorsFallBack(t *testing.T) {
	srv := fakeai.New(t)
	srv.Handle(func(req fakeai.Request) fakeai.Reply {
		if req.Model == "test-model" {
			// Retry-After: 0 keeps the test fast; the backoff math is unit-tested.
			return fakeai.Reply{Status: 500, ErrorMessage: "overloaded", Header: map[string]string{"Retry-After": "0"}}
		}
		return fakeai.Reply{Content: "answered by " + req.Model}
	})
	r := aci(t, t.TempDir(), srv, "hi", []string{"OPENAI_FALLBACK_MODELS=backup, other"})
	if r.code != 0 || r.stdout != "answered by backup\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"retrying in 0s (4/4): 500 internal server error", "aci: falling back to model backup"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	var asked []string
	for _, req := range srv.Requests() {
		asked = append(asked, req.Model)
	}
	if got := strings.Join(asked, ","); got != "test-model,test-model,test-model,test-model,backup" {
		t.Errorf("models asked: %s", got)
	}
}

func TestE2EGarbageBody(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{RawBody: "<html><h1>Welcome to nginx!</h1></html>"})
	r := aci(t, t.TempDir(), srv, "hi", nil)
	want := "aci: Failed to parse API response as JSON. Raw response: <html><h1>Welcome to nginx!</h1></html>\n"
	if r.code != 1 || r.stdout != "" || !strings.HasSuffix(r.stderr, want) {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1: a body that is not JSON is not retried", n)
	}
}

func TestE2EStreamCutAfterText(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "Here is the first part of a long answer", CutAfter: 2})
	r := aci(t, t.TempDir(), srv, "hi", nil)
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "aci: the response stream was cut off after text was shown; not retrying") {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "retrying in") || len(srv.Requests()) != 1 {
		t.Errorf("retried after text was shown:\n%s", r.stderr)
	}
}

func TestE2EConnectionRefused(t *testing.T) {
	srv := fakeai.New(t)
	srv.Close()
	r := aci(t, t.TempDir(), srv, "hi", nil)
	if r.code != 1 || !strings.Contains(r.stderr, "aci: cannot reach "+srv.URL) {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if lines := strings.Count(strings.TrimSpace(r.stderr), "\n") + 1; lines != 1 {
		t.Errorf("want one clear line, got %d:\n%s", lines, r.stderr)
	}
}
