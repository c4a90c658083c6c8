package lsp

import (
	"bufio"
	"strings"
	"testing"
)

func TestReadMessage(t *testing.T) {
	tests := []struct {
		name, in, method, err string
	}{
		{"notification", "Content-Length: 52\r\n\r\n" + `{"jsonrpc":"2.0","method":"window/logMessage","x":1}`, "window/logMessage", ""},
		{"more headers", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 32\r\n\r\n" + `{"jsonrpc":"2.0","method":"a/b"}`, "a/b", ""},
		{"no length", "Content-Type: x\r\n\r\n{}", "", "without Content-Length"},
		{"bad length", "Content-Length: -4\r\n\r\n{}", "", "bad Content-Length"},
		{"huge length", "Content-Length: 999999999999\r\n\r\n{}", "", "bad Content-Length"},
		{"short body", "Content-Length: 10\r\n\r\n{}", "", "EOF"},
		{"not json", "Content-Length: 3\r\n\r\nabc", "", "bad message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := readMessage(bufio.NewReader(strings.NewReader(tt.in)))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || m.Method != tt.method {
				t.Fatalf("got %+v, %v; want method %s", m, err, tt.method)
			}
		})
	}
}

func TestParsePublish(t *testing.T) {
	raw := `{"uri":"file:///w/a.go","version":3,"diagnostics":[
		{"range":{"start":{"line":3,"character":13}},"severity":1,"message":"cannot use x\nmore detail"},
		{"range":{"start":{"line":0,"character":0}},"severity":2,"message":"deprecated"},
		{"range":{"start":{"line":1,"character":0}},"severity":4,"message":"a hint"},
		{"range":{"start":{"line":2,"character":1}},"message":"no severity"}]}`
	p, list, err := parsePublish([]byte(raw))
	if err != nil || p.URI != "file:///w/a.go" || *p.Version != 3 {
		t.Fatalf("%+v %v", p, err)
	}
	want := []Diagnostic{{4, 14, Error, "cannot use x"}, {1, 1, Warning, "deprecated"}, {3, 2, Error, "no severity"}}
	if len(list) != len(want) {
		t.Fatalf("got %+v", list)
	}
	for i := range want {
		if list[i] != want[i] {
			t.Errorf("%d: %+v, want %+v", i, list[i], want[i])
		}
	}
	if got := fileURI("/w/a b#1.go"); got != "file:///w/a%20b%231.go" {
		t.Errorf("fileURI: %s", got)
	}
	for _, uri := range []string{"file:///w/a%20b%231.go", "file:///w/a b%231.go", "file:///w/%61 b%231.go"} {
		if got := fileURI(uriPath(uri)); got != "file:///w/a%20b%231.go" {
			t.Errorf("%s is taken as %s", uri, got)
		}
	}
}

// FuzzReadMessage: whatever a server writes, reading neither panics nor
// takes more than the message's bound.
func FuzzReadMessage(f *testing.F) {
	f.Add("Content-Length: 33\r\n\r\n" + `{"jsonrpc":"2.0","method":"a/bc"}`)
	f.Add("Content-Length: 2\r\n\r\n{}Content-Length: 1\r\n\r\n[")
	f.Add("content-length:5\n\n\"abc\"")
	f.Fuzz(func(t *testing.T, in string) {
		r := bufio.NewReader(strings.NewReader(in))
		for range 10 {
			m, err := readMessage(r)
			if err != nil {
				return
			}
			_, _, _ = parsePublish(m.Params)
		}
	})
}
