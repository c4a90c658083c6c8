package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/secrets"
)

// testKey is the API key the sessions send the fake model; it must never
// come back from the server.
const testKey = "sk-serve-test-key-0123456789abcdef"

// testToken is the server's token in tests.
const testToken = "serve-test-token-0123456789"

// rig is a server over a real loopback listener, its sessions talking to
// the fake model, working in a temporary workspace.
type rig struct {
	t    testing.TB
	ai   *fakeai.Server
	dir  string // the workspace
	srv  *Server
	hs   *httptest.Server
	base string // http://127.0.0.1:PORT
}

type sessionConfig = session.Config

// testSecrets is the set of secrets of the tests' sessions and servers, as
// main builds one for the process.
var testSecrets = secrets.NewRedactor()

type rigOption func(*sessionConfig, *Config)

func newRig(t testing.TB, replies []fakeai.Reply, opts ...rigOption) *rig {
	t.Helper()
	testSecrets.Add(testKey)
	r := &rig{t: t, ai: fakeai.New(t, replies...), dir: t.TempDir()}
	scfg := session.Config{
		Client:          session.ClientConfig{BaseURL: r.ai.URL, APIKey: testKey, Model: "test-model", Stream: true},
		Agent:           session.AgentConfig{BasePrompt: "You are aci, in a test.", MaxSteps: 10, CompressTokens: 1 << 30, Redact: testSecrets.Redact},
		Secrets:         testSecrets,
		OutputLimit:     30000,
		SessionsDir:     t.TempDir(),
		ApprovalTimeout: time.Minute,
	}
	cfg := Config{Workdir: r.dir, Token: testToken, Redact: testSecrets.Redact}
	for _, o := range opts {
		o(&scfg, &cfg)
	}
	cfg.Factory = session.NewFactory(scfg)
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.srv = srv
	r.hs = httptest.NewServer(srv.Handler())
	r.base = r.hs.URL
	t.Cleanup(func() {
		srv.Close() // sessions end before the listener closes
		r.hs.Close()
	})
	return r
}

// request sends method path with body (a string, or a value to encode)
// and the token, plus extra headers ("Name: value").
func (r *rig) request(method, path string, body any, headers ...string) *http.Response {
	r.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			r.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, r.base+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultTransport.RoundTrip(req) // no redirects followed
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// call sends a request and decodes the JSON answer into out (if not nil);
// it returns the status and the raw body.
func (r *rig) call(method, path string, body any, out any, headers ...string) (int, string) {
	r.t.Helper()
	resp := r.request(method, path, body, headers...)
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			r.t.Fatalf("%s %s: %d %q: %v", method, path, resp.StatusCode, data, err)
		}
	}
	return resp.StatusCode, string(data)
}

// must is call that fails the test unless the status is want.
func (r *rig) must(want int, method, path string, body any, out any) string {
	r.t.Helper()
	code, data := r.call(method, path, body, out)
	if code != want {
		r.t.Fatalf("%s %s: %d %s, want %d", method, path, code, data, want)
	}
	return data
}

// followedSession is newSession with its event stream followed.
func (r *rig) followedSession() (string, *stream) {
	r.t.Helper()
	id := r.newSession()
	return id, r.events(id, "")
}

// newSession starts a session and returns its id.
func (r *rig) newSession() string {
	r.t.Helper()
	var got struct{ ID, State string }
	r.must(201, "POST", "/api/sessions", `{}`, &got)
	if got.ID == "" || got.State != "idle" {
		r.t.Fatalf("new session %+v", got)
	}
	return got.ID
}

// ask starts a turn and returns its number.
func (r *rig) ask(id, text string) int {
	r.t.Helper()
	var got struct{ Turn int }
	r.must(202, "POST", "/api/sessions/"+id+"/messages", map[string]string{"text": text}, &got)
	return got.Turn
}

// event is one Server-Sent Event as a client reads it.
type event struct {
	ID   int64
	Type string
	Data map[string]any
	Raw  string
}

// stream is an open event stream read in the background.
type stream struct {
	t      testing.TB
	resp   *http.Response
	events chan event
	cancel context.CancelFunc
}

// events opens the session's event stream, with Last-Event-ID when
// lastID is not "".
func (r *rig) events(id, lastID string) *stream {
	r.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", r.base+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		r.t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		r.t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &stream{t: r.t, resp: resp, events: make(chan event, 10000), cancel: cancel}
	go s.read()
	r.t.Cleanup(s.close)
	return s
}

func (s *stream) close() {
	s.cancel()
	s.resp.Body.Close()
}

// read parses the stream: blank-line separated blocks of id, event and
// data lines; comments are skipped.
func (s *stream) read() {
	defer close(s.events)
	sc := bufio.NewScanner(s.resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var ev event
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.Type != "" {
				s.events <- ev
			}
			ev = event{}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id: "):
			ev.ID, _ = strconv.ParseInt(line[4:], 10, 64)
		case strings.HasPrefix(line, "event: "):
			ev.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			if ev.Raw != "" {
				s.t.Errorf("event %d has two data lines", ev.ID)
			}
			ev.Raw = line[6:]
			if err := json.Unmarshal([]byte(ev.Raw), &ev.Data); err != nil {
				s.t.Errorf("event %d data is not one JSON object: %v: %q", ev.ID, err, ev.Raw)
			}
		default:
			s.t.Errorf("unexpected line in the event stream: %q", line)
		}
	}
}

// next returns the next event, failing the test after timeout.
func (s *stream) next(timeout time.Duration) event {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			s.t.Fatal("the event stream ended")
		}
		return ev
	case <-time.After(timeout):
		s.t.Fatal("no event within", timeout)
	}
	return event{}
}

// until reads events up to and including the first one for which match
// is true, and returns them all.
func (s *stream) until(match func(event) bool) []event {
	s.t.Helper()
	var seen []event
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				s.t.Fatalf("the event stream ended after %v", types(seen))
			}
			seen = append(seen, ev)
			if match(ev) {
				return seen
			}
		case <-timeout:
			s.t.Fatalf("the event wanted did not come within 30s; came: %v", types(seen))
		}
	}
}

// idle matches the state event that ends a turn.
func idle(ev event) bool { return ev.Type == "state" && ev.Data["state"] == "idle" }

func is(typ string) func(event) bool { return func(ev event) bool { return ev.Type == typ } }

// types lists the events' types, a state event as "state:STATE".
func types(evs []event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Type == "state" {
			out = append(out, "state:"+ev.Data["state"].(string))
			continue
		}
		out = append(out, ev.Type)
	}
	return out
}

func call(window, action string, params map[string]any) fakeai.Call {
	return fakeai.Call{Window: window, Action: action, Params: params}
}

// addSecret makes a value secret for the process, as aci does with the
// credential variables it finds.
func addSecret(s string) { testSecrets.Add(s) }
