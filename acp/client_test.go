package acp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/jsonrpc"
	"github.com/aci-dev/aci/internal/testbin"
)

const testKey = testbin.Key

// rpcMsg is any message aci writes.
type rpcMsg = jsonrpc.Message

// editor is a test's side of `aci acp`: it writes requests on aci's
// stdin, reads every line aci writes (each must be a JSON-RPC message),
// answers aci's requests with onRequest and keeps the updates.
type editor struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed when aci's stdout ends

	mu        sync.Mutex
	nextID    int
	waiting   map[string]chan rpcMsg
	updates   []map[string]any // session/update params' "update"
	requests  []rpcMsg         // aci's requests to the editor
	cancelled []string         // request ids aci withdrew ($/cancel_request)
	onRequest func(m rpcMsg) (any, error)
	changed   chan struct{}

	// gate stops the editor reading aci's stdout while it is closed.
	gate gate
}

// gate holds reads back while closed (a read under way finishes).
type gate struct {
	mu     sync.Mutex
	cond   *sync.Cond
	closed bool
}

func (g *gate) set(closed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cond == nil {
		g.cond = sync.NewCond(&g.mu)
	}
	g.closed = closed
	g.cond.Broadcast()
}

// gated reads through the editor's gate.
type gated struct {
	r io.Reader
	g *gate
}

func (r gated) Read(p []byte) (int, error) {
	r.g.mu.Lock()
	for r.g.closed {
		r.g.cond.Wait()
	}
	r.g.mu.Unlock()
	return r.r.Read(p)
}

// startACP runs `aci acp` in dir against srv.
func startACP(t *testing.T, dir string, srv *fakeai.Server, env ...string) *editor {
	t.Helper()
	return startCmd(t, testbin.Command(t, dir, testbin.Env(t, srv, env...), "acp"))
}

func startCmd(t *testing.T, cmd *exec.Cmd) *editor {
	t.Helper()
	e := &editor{t: t, cmd: cmd, done: make(chan struct{}), waiting: map[string]chan rpcMsg{}, changed: make(chan struct{})}
	var err error
	if e.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go e.read(gated{stdout, &e.gate})
	t.Cleanup(func() {
		e.stdin.Close()
		select {
		case <-e.done:
		case <-time.After(20 * time.Second):
			t.Errorf("aci acp did not end when its stdin closed")
			cmd.Process.Kill()
		}
		cmd.Wait()
		if s := stderr.String(); strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") {
			t.Errorf("stack trace on stderr:\n%s", s)
		}
	})
	return e
}

func (e *editor) read(r io.Reader) {
	defer close(e.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, testKey) {
			e.t.Errorf("the API key reached the editor: %.200s", line)
		}
		var m rpcMsg
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" {
			e.t.Errorf("stdout line is not a JSON-RPC 2.0 message: %q", line)
			continue
		}
		switch {
		case m.Method != "" && m.ID != nil:
			e.mu.Lock()
			e.requests = append(e.requests, m)
			h := e.onRequest
			e.signal()
			e.mu.Unlock()
			go e.answer(m, h)
		case m.Method == "session/update":
			var p struct {
				SessionID string         `json:"sessionId"`
				Update    map[string]any `json:"update"`
			}
			if err := json.Unmarshal(m.Params, &p); err != nil || p.SessionID == "" || p.Update["sessionUpdate"] == nil {
				e.t.Errorf("bad session/update: %s", m.Params)
			}
			e.mu.Lock()
			e.updates = append(e.updates, p.Update)
			e.signal()
			e.mu.Unlock()
		case m.Method == "$/cancel_request":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(m.Params, &p)
			e.mu.Lock()
			e.cancelled = append(e.cancelled, string(p.RequestID))
			e.signal()
			e.mu.Unlock()
		case m.Method == "":
			e.mu.Lock()
			ch := e.waiting[string(m.ID)]
			delete(e.waiting, string(m.ID))
			e.mu.Unlock()
			if ch == nil {
				e.t.Errorf("an answer to no request: %s", line)
				continue
			}
			ch <- m
		default:
			e.t.Errorf("unexpected notification: %s", line)
		}
	}
}

func (e *editor) signal() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// answer replies to one of aci's requests.
func (e *editor) answer(m rpcMsg, h func(rpcMsg) (any, error)) {
	if h == nil {
		return // left waiting: the test decides
	}
	res, err := h(m)
	if res == nil && err == nil {
		return
	}
	out := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if err != nil {
		out["error"] = map[string]any{"code": -32603, "message": err.Error()}
	} else {
		out["result"] = res
	}
	e.write(out)
}

func (e *editor) write(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		e.t.Fatal(err)
	}
	e.writeLine(string(data))
}

func (e *editor) writeLine(line string) {
	if _, err := io.WriteString(e.stdin, line+"\n"); err != nil {
		e.t.Errorf("write to aci: %v", err)
	}
}

// send sends a request and returns a channel for its answer.
func (e *editor) send(method string, params any) chan rpcMsg {
	e.mu.Lock()
	e.nextID++
	id := fmt.Sprint(e.nextID)
	ch := make(chan rpcMsg, 1)
	e.waiting[id] = ch
	e.mu.Unlock()
	e.write(map[string]any{"jsonrpc": "2.0", "id": e.nextID, "method": method, "params": params})
	return ch
}

// wait waits for an answer.
func (e *editor) wait(ch chan rpcMsg) rpcMsg {
	e.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(60 * time.Second):
		e.t.Fatalf("no answer within a minute; updates so far: %v", e.allUpdates())
	}
	return rpcMsg{}
}

// call sends a request, waits and decodes a successful answer into res.
func (e *editor) call(method string, params, res any) {
	e.t.Helper()
	m := e.wait(e.send(method, params))
	if m.Error != nil {
		e.t.Fatalf("%s: error %d %s", method, m.Error.Code, m.Error.Message)
	}
	if res != nil {
		if err := json.Unmarshal(m.Result, res); err != nil {
			e.t.Fatalf("%s: result %s: %v", method, m.Result, err)
		}
	}
}

func (e *editor) notify(method string, params any) {
	e.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// until waits until cond holds over what aci sent.
func (e *editor) until(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		e.mu.Lock()
		ok := cond()
		ch := e.changed
		e.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			e.t.Fatalf("never %s; updates: %v", what, e.allUpdates())
		}
	}
}

func (e *editor) allUpdates() []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]map[string]any(nil), e.updates...)
}

func (e *editor) setHandler(h func(rpcMsg) (any, error)) {
	e.mu.Lock()
	e.onRequest = h
	e.mu.Unlock()
}

// initialize runs the handshake with fs capabilities as given.
func (e *editor) initialize(read, write bool) map[string]any {
	var res map[string]any
	e.call("initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": read, "writeTextFile": write}, "terminal": false},
		"clientInfo":         map[string]any{"name": "go-test", "version": "1"},
	}, &res)
	return res
}

func (e *editor) newSession(cwd string) string {
	var res struct {
		SessionID string `json:"sessionId"`
	}
	e.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, &res)
	if res.SessionID == "" {
		e.t.Fatal("session/new gave no sessionId")
	}
	return res.SessionID
}

// prompt sends text and returns the stop reason.
func (e *editor) prompt(sid, text string) string {
	e.t.Helper()
	var res struct {
		StopReason string `json:"stopReason"`
	}
	e.call("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}, &res)
	return res.StopReason
}

// kinds lists the updates of one sessionUpdate kind.
func kinds(ups []map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, u := range ups {
		if u["sessionUpdate"] == kind {
			out = append(out, u)
		}
	}
	return out
}

// chunkText joins the text of the chunks of one kind.
func chunkText(ups []map[string]any, kind string) string {
	var b strings.Builder
	for _, u := range kinds(ups, kind) {
		c, _ := u["content"].(map[string]any)
		s, _ := c["text"].(string)
		b.WriteString(s)
	}
	return b.String()
}

func call(window, action string, params map[string]any) fakeai.Call {
	return fakeai.Call{Window: window, Action: action, Params: params}
}

// openBash opens a bash window: bash_1, the first of a session.
var openBash = call("launcher", "open", map[string]any{"app": "bash"})
