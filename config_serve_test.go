package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestServeConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		addr    string
		token   string
		timeout time.Duration
		wantErr string
	}{
		{name: "default", args: []string{"serve"}, addr: "127.0.0.1:7433", timeout: 600 * time.Second},
		{name: "addr", args: []string{"serve", "--addr", "0.0.0.0:0"}, addr: "0.0.0.0:0", timeout: 600 * time.Second},
		{name: "env", args: []string{"serve"}, env: map[string]string{"ACI_SERVE_TOKEN": "a-token-of-enough-length", "ACI_SERVE_APPROVAL_TIMEOUT": "5"},
			addr: "127.0.0.1:7433", token: "a-token-of-enough-length", timeout: 5 * time.Second},
		{name: "short token", args: []string{"serve"}, env: map[string]string{"ACI_SERVE_TOKEN": "short"}, wantErr: "at least 16"},
		{name: "zero timeout", args: []string{"serve"}, env: map[string]string{"ACI_SERVE_APPROVAL_TIMEOUT": "0"}, wantErr: "at least 1 second"},
		{name: "bad timeout", args: []string{"serve"}, env: map[string]string{"ACI_SERVE_APPROVAL_TIMEOUT": "soon"}, wantErr: "whole number"},
		{name: "no port", args: []string{"serve", "--addr", "127.0.0.1"}, wantErr: "HOST:PORT"},
		{name: "bad port", args: []string{"serve", "--addr", "127.0.0.1:70000"}, wantErr: "0 to 65535"},
		{name: "no host", args: []string{"serve", "--addr", ":7433"}, wantErr: "needs a host"},
		{name: "question", args: []string{"serve", "-p", "hi"}, wantErr: "questions come over HTTP"},
		{name: "addr without serve", args: []string{"--addr", "127.0.0.1:1"}, wantErr: "--addr is for aci serve"},
		{name: "serve later", args: []string{"--model", "m", "serve"}, wantErr: `unexpected argument "serve"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := serveConfig(t, tt.args, tt.env, tt.wantErr)
			if ok && (!c.Serve || c.Addr != tt.addr || c.ServeToken != tt.token || c.ApprovalTimeout != tt.timeout) {
				t.Errorf("serve %v addr %q token %q timeout %v", c.Serve, c.Addr, c.ServeToken, c.ApprovalTimeout)
			}
		})
	}
}

func TestServeREPLFlag(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		addr    string
		wantErr string
	}{
		{name: "bare", args: []string{"--serve"}, addr: "127.0.0.1:7433"},
		{name: "next word", args: []string{"--serve", "127.0.0.1:0"}, addr: "127.0.0.1:0"},
		{name: "equals", args: []string{"--serve=0.0.0.0:9000"}, addr: "0.0.0.0:9000"},
		{name: "then a flag", args: []string{"--serve", "--model", "m"}, addr: "127.0.0.1:7433"},
		{name: "not an address", args: []string{"--serve", "hello"}, wantErr: `unexpected argument "hello"`},
		{name: "bad port", args: []string{"--serve=127.0.0.1:70000"}, wantErr: "0 to 65535"},
		{name: "pipe mode", args: []string{"--serve", "-p", "hi"}, wantErr: "--serve is for the REPL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := serveConfig(t, tt.args, nil, tt.wantErr)
			if ok && (!c.ServeREPL || c.ServeREPLAddr != tt.addr || c.Serve) {
				t.Errorf("serve REPL %v at %q (aci serve %v)", c.ServeREPL, c.ServeREPLAddr, c.Serve)
			}
		})
	}
}

// serveConfig loads args with no serve setting in the environment but
// env's; with wantErr the error must hold it, and ok is false.
func serveConfig(t *testing.T, args []string, env map[string]string, wantErr string) (c config, ok bool) {
	t.Helper()
	t.Chdir(t.TempDir())
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ACI_SERVE_TOKEN", "")
	t.Setenv("ACI_SERVE_APPROVAL_TIMEOUT", "")
	for k, v := range env {
		t.Setenv(k, v)
	}
	c, err := loadConfig(args, io.Discard)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want %q", err, wantErr)
		}
		return c, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return c, true
}
