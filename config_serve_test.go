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
			t.Chdir(t.TempDir())
			t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1")
			t.Setenv("ACI_SERVE_TOKEN", "")
			t.Setenv("ACI_SERVE_APPROVAL_TIMEOUT", "")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			c, err := loadConfig(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !c.Serve || c.Addr != tt.addr || c.ServeToken != tt.token || c.ApprovalTimeout != tt.timeout {
				t.Errorf("serve %v addr %q token %q timeout %v", c.Serve, c.Addr, c.ServeToken, c.ApprovalTimeout)
			}
		})
	}
}
