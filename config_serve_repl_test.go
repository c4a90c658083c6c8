package main

import (
	"io"
	"strings"
	"testing"
)

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
			t.Chdir(t.TempDir())
			t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1")
			t.Setenv("ACI_SERVE_TOKEN", "")
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
			if !c.ServeREPL || c.ServeREPLAddr != tt.addr || c.Serve {
				t.Errorf("serve REPL %v at %q (aci serve %v)", c.ServeREPL, c.ServeREPLAddr, c.Serve)
			}
		})
	}
}
