package main

import (
	"errors"
	"io"
	"strings"
	"testing"
)

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
