package mcp

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/mcptest"
	"github.com/aci-dev/aci/internal/testutil"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkHTTP serves the SDK's test server over streamable HTTP and notes each
// request's method and MCP headers; restart makes it forget its sessions,
// as a server does when it restarts.
type sdkHTTP struct {
	*httptest.Server
	token string // the bearer token it asks for, if any

	h    atomic.Pointer[http.Handler]
	mu   sync.Mutex
	seen []string
}

func newSDKHTTP(t *testing.T, token string) *sdkHTTP {
	s := &sdkHTTP{token: token}
	s.restart()
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		line := r.Method
		if r.Header.Get("Mcp-Session-Id") != "" {
			line += " session"
		}
		if v := r.Header.Get("MCP-Protocol-Version"); v != "" {
			line += " " + v
		}
		s.mu.Lock()
		s.seen = append(s.seen, line)
		s.mu.Unlock()
		(*s.h.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sdkHTTP) restart() {
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.NewServer() }, nil)
	s.h.Store(&h)
}

func (s *sdkHTTP) requests() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.seen, "\n")
}

// poolOver serves the SDK test server as "go" over one transport.
func poolOver(t *testing.T, transport string, timeout time.Duration) *Pool {
	switch transport {
	case "memory":
		return inProcessPool(t, timeout)
	case "stdio":
		return stdioPool(t, timeout)
	}
	hs := newSDKHTTP(t, "")
	cfg := Config{Servers: map[string]ServerConfig{"go": {Name: "go", Type: HTTP, URL: hs.URL}}}
	p := NewPool(cfg, Options{CallTimeout: timeout, LogDir: t.TempDir()})
	t.Cleanup(p.Close)
	return p
}

// TestClientOverEachTransport runs the protocol against the official SDK's
// server over each transport: lists in pages, calls, the server's own
// requests, list changes and cancellation; and leaves no goroutine behind.
func TestClientOverEachTransport(t *testing.T) {
	for _, transport := range []string{"memory", "stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			ctx := context.Background()
			p := poolOver(t, transport, 10*time.Second)
			goroutines := runtime.NumGoroutine() // with the HTTP server's
			s := acquire(t, p, "go")

			// 14 tools, in pages of 3.
			if n := len(s.Tools()); n != 14 || s.Tool("canceled") == nil {
				t.Errorf("%d tools", n)
			}
			if r, tm := s.Resources(), s.Templates(); len(r) != 1 || r[0].Name != "readme" || len(tm) != 1 || tm[0].URITemplate != "test://notes/{id}" {
				t.Errorf("resources %+v, templates %+v", r, tm)
			}
			if s.Instructions() != "Echo before you add." {
				t.Errorf("instructions %q", s.Instructions())
			}
			for _, tt := range []struct {
				tool string
				args map[string]any
				want string
			}{
				{"echo", map[string]any{"message": "über"}, "echo: über"},
				{"image", nil, "a dot:\n[image image/png, 5 bytes]"},
				{"ping", nil, "pong"},                            // the server pings aci
				{"roots", nil, "aci does not answer roots/list"}, // a request aci refuses
				{"big", map[string]any{"size": 100000}, strings.Repeat("x", 100000)},
			} {
				res, err := s.CallTool(ctx, tt.tool, tt.args)
				if err != nil || !strings.Contains(res.Text, tt.want) || res.IsError {
					t.Errorf("%s: %.200q %v, want %.100q", tt.tool, res.Text, err, tt.want)
				}
			}
			if res, err := s.ReadResource(ctx, "test://notes/7"); err != nil || res.Text != "note 7" {
				t.Errorf("read: %+v %v", res, err)
			}

			// The server says its tools changed: aci lists them again.
			version := s.ListVersion()
			if _, err := s.CallTool(ctx, "grow", nil); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the list to follow the server's change", func() bool { return s.Tool("grown") != nil && s.ListVersion() > version })

			// A canceled call is canceled on the server too.
			cctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(100*time.Millisecond, cancel)
			if _, err := s.CallTool(cctx, "slow", nil); err == nil || !strings.Contains(err.Error(), "call slow on MCP server go: canceled") {
				t.Errorf("canceled call: %v", err)
			}
			waitFor(t, "the server to see the cancel", func() bool {
				res, err := s.CallTool(ctx, "canceled", nil)
				return err == nil && res.Text == "1"
			})

			p.Release(s)
			http.DefaultTransport.(*http.Transport).CloseIdleConnections()
			waitFor(t, "the client's goroutines to end", func() bool { return runtime.NumGoroutine() <= goroutines })
		})
	}
}

// waitFor polls cond for up to 5 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("waited 5 s for %s", what)
			return
		}
	}
}

// A message over the size aci reads fails its call only; a line that is not
// JSON-RPC is noted in the log and skipped.
func TestStdioOversizedAndMalformedLines(t *testing.T) {
	defer func(m int) { maxMessage = m }(maxMessage)
	maxMessage = 50000
	ctx := context.Background()
	p := stdioPool(t, 10*time.Second)
	s := acquire(t, p, "go")
	defer p.Release(s)
	pid := s.Pid()

	_, err := s.CallTool(ctx, "big", map[string]any{"size": 200000})
	if err == nil || !strings.Contains(err.Error(), "call big on MCP server go: the server's answer is larger than 50000 bytes, more than aci reads") {
		t.Errorf("big: %v", err)
	}
	res, err := s.CallTool(ctx, "noise", nil)
	if err != nil || res.Text != "noisy" {
		t.Errorf("noise: %+v %v", res, err)
	}
	if res, err := s.CallTool(ctx, "echo", map[string]any{"message": "after"}); err != nil || res.Text != "echo: after" || res.Note != "" || s.Pid() != pid {
		t.Errorf("after: %+v %v (pid %d, was %d)", res, err, s.Pid(), pid)
	}
	log, _ := os.ReadFile(s.LogPath())
	if !strings.Contains(string(log), `aci: ignored output that is not a JSON-RPC message: "mcptest: this line is not JSON-RPC"`) {
		t.Errorf("log:\n%s", log)
	}
}

// The id of a message too large to read, at its start or its end.
func TestIDOfCut(t *testing.T) {
	for _, tt := range []struct {
		head, tail string
		want       int64
	}{
		{`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"xxxx`, `xxxx"}]}}`, 12},
		{`{"result":{"content":[{"type":"text","text":"xxxx`, `xxxx"}]},"jsonrpc":"2.0","id":7}` + "\n", 7},
		{`{"result":{"id":3,"content":"xx`, `xx","id":5}}`, 0}, // nested: not the message's
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"xx`, `xx"}}`, 0},
		{`{"jsonrpc":"2.0","id":"abc","result":{"x":"`, `"}}`, 0},
	} {
		got, ok := idOfCut([]byte(tt.head), []byte(tt.tail))
		if got != tt.want || ok != (tt.want != 0) {
			t.Errorf("%s…%s: %d %v, want %d", tt.head, tt.tail, got, ok, tt.want)
		}
	}
}

// Over HTTP: the session's headers, a connection lost during a call, an
// expired session, and DELETE at the end.
func TestHTTPSession(t *testing.T) {
	ctx := context.Background()
	hs := newSDKHTTP(t, "")
	cfg := Config{Servers: map[string]ServerConfig{"go": {Name: "go", Type: HTTP, URL: hs.URL}}}
	p := NewPool(cfg, Options{CallTimeout: 10 * time.Second, LogDir: t.TempDir()})
	defer p.Close()
	s := acquire(t, p, "go")

	// The server's end of the connection goes away mid-call.
	time.AfterFunc(200*time.Millisecond, hs.CloseClientConnections)
	if _, err := s.CallTool(ctx, "slow", nil); err == nil || !strings.Contains(err.Error(), "call slow on MCP server go: the server ") || !strings.Contains(err.Error(), "without answering") {
		t.Errorf("lost connection: %v", err)
	}
	if res, err := s.CallTool(ctx, "echo", map[string]any{"message": "again"}); err != nil || res.Text != "echo: again" {
		t.Errorf("after the lost connection: %+v %v", res, err)
	}

	hs.restart()
	_, err := s.CallTool(ctx, "echo", map[string]any{"message": "x"})
	if err == nil || !strings.Contains(err.Error(), "call echo on MCP server go: the server ended the session (HTTP 404 for its session id): it expired or the server restarted; a new session starts at the next call") {
		t.Errorf("expired: %v", err)
	}
	res, err := s.CallTool(ctx, "echo", map[string]any{"message": "new session"})
	if err != nil || res.Text != "echo: new session" || !strings.Contains(res.Note, "had stopped (the server ended the session") {
		t.Errorf("new session: %+v %v", res, err)
	}
	p.Release(s)

	seen := hs.requests()
	for _, want := range []string{
		"POST\nPOST session 2025-11-25\n", // initialize, then initialized in the session
		"GET session 2025-11-25",          // the stream of list changes
		"DELETE session 2025-11-25",
	} {
		if !strings.Contains(seen, want) {
			t.Errorf("requests lack %q:\n%s", want, seen)
		}
	}
	if strings.Count(seen, "DELETE") != 1 {
		t.Errorf("one DELETE expected (none for the expired session):\n%s", seen)
	}
}

// The reference server of the TypeScript SDK over streamable HTTP (the
// stdio one runs in the windows and e2e tests).
func TestEverythingServerOverHTTP(t *testing.T) {
	node, script := testutil.MCPEverything(t)
	port := testutil.ClosedPort(t)
	cmd := exec.Command(node, script, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				listening <- true
			}
		}
		close(listening)
	}()
	select {
	case ok := <-listening:
		if !ok {
			t.Fatal("the everything server exited before listening")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the everything server did not listen within 20 s")
	}

	ctx := context.Background()
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	p := NewPool(Config{Servers: map[string]ServerConfig{"everything": {Name: "everything", Type: HTTP, URL: url}}}, Options{CallTimeout: 10 * time.Second, LogDir: t.TempDir()})
	defer p.Close()
	s := acquire(t, p, "everything")
	if s.Tool("echo") == nil || s.Tool("get-sum") == nil || len(s.Resources()) == 0 {
		t.Fatalf("%d tools, %d resources", len(s.Tools()), len(s.Resources()))
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"echo", map[string]any{"message": "hello over http"}, "hello over http"},
		{"get-sum", map[string]any{"a": 2, "b": 3}, "5"},
	} {
		if res, err := s.CallTool(ctx, tt.tool, tt.args); err != nil || !strings.Contains(res.Text, tt.want) || res.IsError {
			t.Errorf("%s: %+v %v", tt.tool, res, err)
		}
	}
	uri := s.Resources()[0].URI
	if res, err := s.ReadResource(ctx, uri); err != nil || res.Text == "" {
		t.Errorf("read %s: %+v %v", uri, res, err)
	}
	p.Release(s)
}
