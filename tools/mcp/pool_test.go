package mcp

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.Main()
	os.Exit(m.Run())
}

// inProcessPool serves the SDK test server in-process under the name "go".
func inProcessPool(t *testing.T, timeout time.Duration) *Pool {
	cfg := Config{Servers: map[string]ServerConfig{"go": {Name: "go", Type: Stdio, Command: "unused"}}}
	p := NewPool(cfg, Options{CallTimeout: timeout, LogDir: t.TempDir(),
		Dial: func(ServerConfig) (io.ReadWriteCloser, error) { return mcptest.InMemory() }})
	t.Cleanup(p.Close)
	return p
}

// stdioPool runs the SDK test server as a child process under "go", and a
// few broken servers.
func stdioPool(t *testing.T, timeout time.Duration) *Pool {
	exe, args, env := mcptest.StdioCommand()
	cfg := Config{Servers: map[string]ServerConfig{
		"go":      {Name: "go", Type: Stdio, Command: exe, Args: args, Env: env},
		"dies":    {Name: "dies", Type: Stdio, Command: "sh", Args: []string{"-c", "echo 'cannot find module x' >&2; exit 3"}},
		"mute":    {Name: "mute", Type: Stdio, Command: "sleep", Args: []string{"60"}},
		"missing": {Name: "missing", Type: Stdio, Command: "no-such-mcp-server-x"},
		"script":  {Name: "script", Type: Stdio, Command: "./bin/server.sh"},
	}}
	work := t.TempDir()
	if err := os.MkdirAll(work+"/bin", 0o755); err != nil {
		t.Fatal(err)
	}
	// A script of the workspace, named relative to it, that dies at once.
	if err := os.WriteFile(work+"/bin/server.sh", []byte("#!/bin/sh\necho \"script ran in $PWD\" >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := NewPool(cfg, Options{Workdir: work, CallTimeout: timeout, StartTimeout: 2 * time.Second, LogDir: t.TempDir()})
	t.Cleanup(p.Close)
	return p
}

func TestInProcessCalls(t *testing.T) {
	ctx := context.Background()
	p := inProcessPool(t, 300*time.Millisecond)
	s := acquire(t, p, "go")
	defer p.Release(s)

	var names []string
	for _, tool := range s.Tools() {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "echo") || !strings.Contains(got, "crash") {
		t.Fatalf("tools %s", got)
	}
	if !ReadOnly(s.Tool("echo")) || ReadOnly(s.Tool("add")) {
		t.Error("read-only annotations not read")
	}
	if ps := ToolParams(s.Tool("add")); len(ps) != 2 || ps[0].Name != "a" || !ps[0].Required || ps[0].Type != "integer" || ps[1].Type != "number" {
		t.Errorf("add params %+v", ps)
	}
	if ps := ToolParams(s.Tool("echo")); len(ps) != 1 || ps[0].Desc != "the text to send back" {
		t.Errorf("echo params %+v", ps)
	}
	if rs := s.Resources(); len(rs) != 1 || rs[0].URI != "test://readme" {
		t.Errorf("resources %+v", rs)
	}

	tests := []struct {
		tool    string
		args    map[string]any
		want    string
		isError bool
		errText string
	}{
		{tool: "echo", args: map[string]any{"message": "hi"}, want: "echo: hi"},
		{tool: "add", args: map[string]any{"a": 2, "b": 0.5}, want: "2.5"},
		{tool: "image", want: "a dot:\n[image image/png, 5 bytes]"},
		{tool: "fail", want: "the disk is full", isError: true},
		{tool: "add", args: map[string]any{"a": "x"}, want: "a", isError: true}, // the SDK checks its input
		{tool: "nope", errText: "answered with an error"},
		{tool: "slow", errText: "no answer within 300ms; the server was stopped and starts again at the next call"},
		{tool: "echo", args: map[string]any{"message": "again"}, want: "echo: again"}, // a fresh server after the hang
	}
	for _, tt := range tests {
		res, err := s.CallTool(ctx, tt.tool, tt.args)
		if tt.errText != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errText) {
				t.Errorf("%s: err = %v, want %q", tt.tool, err, tt.errText)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.tool, err)
			continue
		}
		if !strings.Contains(res.Text, tt.want) || res.IsError != tt.isError {
			t.Errorf("%s: %+v, want %q (error %v)", tt.tool, res, tt.want, tt.isError)
		}
	}

	r, err := s.ReadResource(ctx, "test://readme")
	if err != nil || r.Text != "hello from the resource" {
		t.Errorf("read: %+v %v", r, err)
	}
	if _, err := s.ReadResource(ctx, "test://none"); err == nil {
		t.Error("reading a missing resource did not fail")
	}

	// The server adds a tool and says so: the list follows.
	if _, err := s.CallTool(ctx, "grow", nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Tool("grown") == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s.Tool("grown") == nil {
		t.Error("the tool list did not follow the server's change")
	}

	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := s.CallTool(cctx, "slow", nil); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("canceled call: %v", err)
	}
}

func TestLookupNamesConfigured(t *testing.T) {
	p := stdioPool(t, time.Second)
	_, err := p.Acquire(context.Background(), "nosuch")
	if err == nil || !strings.Contains(err.Error(), `no MCP server "nosuch"; configured: dies, go, missing, mute, script`) {
		t.Errorf("err = %v", err)
	}
	empty := NewPool(Config{}, Options{})
	if _, err := empty.Lookup("x"); err == nil || !strings.Contains(err.Error(), "none is configured") {
		t.Errorf("err = %v", err)
	}
}

func TestStdioFailures(t *testing.T) {
	ctx := context.Background()
	p := stdioPool(t, 2*time.Second)
	tests := []struct{ name, want string }{
		{"dies", "MCP server dies (sh -c echo 'cannot find module x' >&2; exit 3) did not start"},
		{"dies", "cannot find module x"}, // from its log
		{"mute", "no answer to the handshake within 2 s"},
		{"missing", `command "no-such-mcp-server-x" not found`},
		{"script", "script ran in /"},
	}
	for _, tt := range tests {
		start := time.Now()
		_, err := p.Acquire(ctx, tt.name)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
		if d := time.Since(start); d > 8*time.Second {
			t.Errorf("%s: took %s", tt.name, d)
		}
	}
}

func TestStdioCrashAndNoOrphans(t *testing.T) {
	ctx := context.Background()
	p := stdioPool(t, 5*time.Second)
	s := acquire(t, p, "go")
	pid := s.Pid()
	if pid == 0 || !mcptest.Alive(pid) {
		t.Fatalf("pid %d not running", pid)
	}
	if res, err := s.CallTool(ctx, "echo", map[string]any{"message": "x"}); err != nil || res.Text != "echo: x" {
		t.Fatalf("echo: %+v %v", res, err)
	}

	// Crash mid-call: a clear error with the exit status and its log.
	_, err := s.CallTool(ctx, "crash", nil)
	for _, want := range []string{"MCP server go stopped during the call", "exit status 3", "crashing on purpose", "starts again at the next call"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("crash: err = %v, want %q", err, want)
		}
	}
	// The next call starts it again and says so.
	res, err := s.CallTool(ctx, "echo", map[string]any{"message": "back"})
	if err != nil || res.Text != "echo: back" || !strings.Contains(res.Note, "had stopped (exit status 3) and was started again") {
		t.Fatalf("after crash: %+v %v", res, err)
	}
	pid = s.Pid()

	// A child the server started dies with it.
	res, err = s.CallTool(ctx, "spawn", nil)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(res.Text)
	if !mcptest.Alive(child) {
		t.Fatalf("child %d not running", child)
	}
	p.Release(s)
	if left := mcptest.WaitGone(pid, 5*time.Second); len(left) > 0 {
		t.Errorf("processes left in the server's group after release: %v", left)
	}
	if mcptest.Alive(pid) || mcptest.Alive(child) {
		t.Errorf("server %d or child %d still alive", pid, child)
	}
}

func TestPoolSharesAndCloses(t *testing.T) {
	ctx := context.Background()
	p := stdioPool(t, 5*time.Second)
	a := acquire(t, p, "go")
	b := acquire(t, p, "go")
	if a != b || a.Pid() == 0 {
		t.Fatal("two acquires did not share one server")
	}
	pid := a.Pid()
	p.Release(a)
	if !mcptest.Alive(pid) {
		t.Fatal("server stopped while a user remained")
	}
	p.Close() // aci exits with a window still open
	if left := mcptest.WaitGone(pid, 5*time.Second); len(left) > 0 {
		t.Errorf("left after Close: %v", left)
	}
	if _, err := p.Acquire(ctx, "go"); err == nil {
		t.Error("acquire after Close worked")
	}
	log, err := os.ReadFile(a.LogPath())
	if err != nil || !strings.Contains(string(log), "=== aci starts go") {
		t.Errorf("log %q %v", log, err)
	}
}

func TestStreamableHTTP(t *testing.T) {
	ctx := context.Background()
	hs := newSDKHTTP(t, "t0ken")
	cfg := Config{Servers: map[string]ServerConfig{
		"remote":  {Name: "remote", Type: HTTP, URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer t0ken"}},
		"noauth":  {Name: "noauth", Type: HTTP, URL: hs.URL},
		"nothere": {Name: "nothere", Type: HTTP, URL: "http://127.0.0.1:1/mcp"},
	}}
	p := NewPool(cfg, Options{CallTimeout: 5 * time.Second, StartTimeout: 5 * time.Second, LogDir: t.TempDir()})
	defer p.Close()
	s := acquire(t, p, "remote")
	res, err := s.CallTool(ctx, "echo", map[string]any{"message": "over http"})
	if err != nil || res.Text != "echo: over http" || hs.requests() == "" || s.Pid() != 0 {
		t.Errorf("http echo: %+v %v", res, err)
	}
	p.Release(s)
	for _, name := range []string{"noauth", "nothere"} {
		_, err := p.Acquire(ctx, name)
		if err == nil || !strings.Contains(err.Error(), "MCP server "+name+" (http ") || !strings.Contains(err.Error(), "did not start") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := p.Acquire(ctx, "noauth"); err == nil || !strings.Contains(err.Error(), "HTTP 401 Unauthorized: unauthorized") {
		t.Errorf("noauth: %v", err)
	}
}

func TestStdioHangIsStopped(t *testing.T) {
	ctx := context.Background()
	p := stdioPool(t, 500*time.Millisecond)
	s := acquire(t, p, "go")
	defer p.Release(s)
	pid := s.Pid()
	start := time.Now()
	_, err := s.CallTool(ctx, "slow", nil)
	if err == nil || !strings.Contains(err.Error(), "call slow on MCP server go: no answer within 500ms; the server was stopped") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a hung call took %s to give up", d)
	}
	if left := mcptest.WaitGone(pid, 3*time.Second); len(left) > 0 {
		t.Errorf("hung server still there: %v", left)
	}
	if res, err := s.CallTool(ctx, "echo", map[string]any{"message": "fresh"}); err != nil || res.Text != "echo: fresh" || s.Pid() == pid {
		t.Errorf("after the hang: %+v %v", res, err)
	}
}

// acquire acquires the server name from p.
func acquire(t *testing.T, p *Pool, name string) *Server {
	t.Helper()
	s, err := p.Acquire(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
