package main

import (
	"io"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/session"
)

// TestZeroConfiguration: with neither a key nor a base URL, aci uses the
// first local server that answers; the fake stands in for Ollama on its
// own port, so no well-known port needs to be free.
func TestZeroConfiguration(t *testing.T) {
	srv := fakeai.New(t)
	srv.SetInfo(fakeai.Info{Models: []string{"qwen2.5-coder:7b", "llama3.2"}})
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		servers []session.LocalServer
		model   string
		err     string
	}{
		{name: "first model", servers: []session.LocalServer{{Name: "Ollama", Port: testutil.PortOf(t, srv.URL)}}, model: "qwen2.5-coder:7b"},
		{name: "OPENAI_MODEL names one", env: map[string]string{"OPENAI_MODEL": "llama3.2"}, servers: []session.LocalServer{{Name: "Ollama", Port: testutil.PortOf(t, srv.URL)}}, model: "llama3.2"},
		{name: "--model names one", args: []string{"--model", "llama3.2"}, servers: []session.LocalServer{{Name: "Ollama", Port: testutil.PortOf(t, srv.URL)}}, model: "llama3.2"},
		{name: "second in order", servers: []session.LocalServer{{Name: "Ollama", Port: testutil.ClosedPort(t)}, {Name: "llama.cpp", Port: testutil.PortOf(t, srv.URL)}}, model: "qwen2.5-coder:7b"},
		{name: "none found", servers: []session.LocalServer{{Name: "Ollama", Port: testutil.ClosedPort(t), Start: "ollama serve"}}, err: "No local model server answered either (tried Ollama :"},
		{name: "a key skips discovery", env: map[string]string{"OPENAI_API_KEY": "sk-x"}, servers: []session.LocalServer{{Name: "Ollama", Port: testutil.PortOf(t, srv.URL)}}, model: defaultModel},
		{name: "a base URL skips discovery", env: map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, servers: []session.LocalServer{{Name: "Ollama", Port: testutil.PortOf(t, srv.URL)}}, model: defaultModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // no .env
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "ACI_FIRST_BYTE_TIMEOUT"} {
				t.Setenv(k, tt.env[k])
			}
			saved := localServers
			localServers = tt.servers
			defer func() { localServers = saved }()
			c, err := loadConfig(tt.args, io.Discard)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "OPENAI_API_KEY is not set") {
					t.Fatalf("err = %v", err)
				}
				if _, ok := err.(*noKeyError); !ok {
					t.Errorf("%T is not the missing-key error", err)
				}
				return
			}
			if err != nil || c.Model != tt.model {
				t.Fatalf("model %q, err %v", c.Model, err)
			}
			if tt.env["OPENAI_API_KEY"] == "" && tt.env["OPENAI_BASE_URL"] == "" && (c.BaseURL != srv.URL || !strings.Contains(c.Found, "at "+srv.URL+", model "+tt.model)) {
				t.Errorf("base %q found %q", c.BaseURL, c.Found)
			}
		})
	}
}
