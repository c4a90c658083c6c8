package main

import (
	"io"
	"strings"
	"testing"
)

// moneyEnv isolates a config test: a workspace, no user files, a
// loopback endpoint that needs no key.
func moneyEnv(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ACI_REASONING_EFFORT", "")
}

func TestEffortConfig(t *testing.T) {
	cases := []struct {
		env  string
		args []string
		want string
		err  string
	}{
		{"", nil, "", ""},
		{"medium", nil, "medium", ""},
		{"medium", []string{"--effort", "HIGH"}, "high", ""},
		{"", []string{"--effort", "low"}, "low", ""},
		{"lots", nil, "", "ACI_REASONING_EFFORT: reasoning effort \"lots\": want one of low, medium, high"},
		{"", []string{"--effort", "max"}, "", "--effort: reasoning effort \"max\""},
		{"", []string{"--effort="}, "", "--effort needs a level"},
	}
	for _, c := range cases {
		moneyEnv(t)
		t.Setenv("ACI_REASONING_EFFORT", c.env)
		cfg, err := loadConfig(c.args, io.Discard)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q %v: error %v, want %q", c.env, c.args, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%q %v: %v", c.env, c.args, err)
		case c.err == "" && cfg.Effort != c.want:
			t.Errorf("%q %v: effort %q, want %q", c.env, c.args, cfg.Effort, c.want)
		}
		if _, ok := err.(errUsage); c.err != "" && !ok {
			t.Errorf("%q %v: %T is not a usage error (exit 2)", c.env, c.args, err)
		}
	}
}
