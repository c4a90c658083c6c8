package main

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

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

func TestFlagLike(t *testing.T) {
	for word, want := range map[string]bool{
		"--verbose": true, "-q": true, "--bogus": true, "--level=3": true, "-v2": true, "--dry-run": true,
		"-": false, "--": false, "---x": false, "-5": false, "-- not a flag": false, "-x y": false,
		"question": false, "--é": false,
	} {
		if got := flagLike(word); got != want {
			t.Errorf("flagLike(%q) = %v", word, got)
		}
	}
}

func TestBarePDashDash(t *testing.T) {
	tests := []struct {
		args   []string
		prompt string
		err    string
	}{
		{args: []string{"-p", "--", "--verbose"}, prompt: "--verbose"},
		{args: []string{"-p", "--", "-q"}, prompt: "-q"},
		{args: []string{"-p", "--verbose"}, err: "--verbose"},
		{args: []string{"-p", "-v"}, err: "did you mean --version?"},
		{args: []string{"--model", "m", "-p", "--bogus"}, err: "-p -- --bogus"},
	}
	for _, tt := range tests {
		userEnvSetup(t, "OPENAI_BASE_URL")
		t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1")
		c, err := loadConfig(tt.args, io.Discard)
		switch {
		case tt.err != "":
			var u errUsage
			if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: %v, want a usage error with %q", tt.args, err, tt.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.args, err)
		case c.Prompt != tt.prompt || !c.PromptSet:
			t.Errorf("%q: prompt %q set %v", tt.args, c.Prompt, c.PromptSet)
		}
	}
}
