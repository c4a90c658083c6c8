package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/transcript"
)

// rawExchange sends req on a fresh connection to addr and returns the
// response and the connection, still open.
func rawExchange(t *testing.T, addr, req string) (*http.Response, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, c, br
}

// closedWithin says whether the server closes c within d.
func closedWithin(c net.Conn, br *bufio.Reader, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := br.ReadByte()
	return err == io.EOF
}

// A client that fails authentication keeps no connection: its 401 says
// Connection: close and the server closes it, keep-alive asked or not.
func TestUnauthenticatedConnectionClosed(t *testing.T) {
	r := newRig(t, nil)
	addr := r.hs.Listener.Addr().String()
	for _, auth := range []string{"", "Authorization: Bearer wrong-token-0123456789\r\n", "Cookie: aci_token=" + testToken + "\r\n"} {
		resp, c, br := rawExchange(t, addr, "GET /api/sessions HTTP/1.1\r\nHost: "+addr+"\r\nConnection: keep-alive\r\n"+auth+"\r\n")
		if resp.StatusCode != 401 || !resp.Close { // Close: the answer said Connection: close
			t.Errorf("%q: %d, keep-alive kept", auth, resp.StatusCode)
		}
		if !closedWithin(c, br, 2*time.Second) {
			t.Errorf("%q: the connection stayed open after the 401", auth)
		}
	}
	// With the token the connection is kept.
	resp, c, br := rawExchange(t, addr, "GET /api/sessions HTTP/1.1\r\nHost: "+addr+"\r\nAuthorization: Bearer "+testToken+"\r\n\r\n")
	if resp.StatusCode != 200 || resp.Close || closedWithin(c, br, 200*time.Millisecond) {
		t.Errorf("an authenticated connection was closed: %d", resp.StatusCode)
	}
}

// A kept-alive connection with no request is closed after the idle timeout.
func TestIdleConnectionClosed(t *testing.T) {
	r := newRig(t, nil)
	r.srv.idleTimeout = 300 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.srv.Serve(ctx, ln) }()
	defer func() { stop(); <-done }()
	addr := ln.Addr().String()
	resp, c, br := rawExchange(t, addr, "GET /api/sessions HTTP/1.1\r\nHost: "+addr+"\r\nAuthorization: Bearer "+testToken+"\r\n\r\n")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if !closedWithin(c, br, 5*time.Second) {
		t.Error("an idle connection stayed open past the idle timeout")
	}
}

// A question over 256 KiB gets 413 and a JSON error, with or without a
// Content-Length; one at the limit is taken. It is stored once.
func TestMessageLimitAndStoredOnce(t *testing.T) {
	r := newRig(t, []fakeai.Reply{{Content: "Read it."}})
	id := r.newSession()
	wrap := func(text string) string { return `{"text":"` + text + `"}` }
	over := wrap(strings.Repeat("a", maxMessageBody))
	for name, body := range map[string]io.Reader{
		"with length":    strings.NewReader(over),
		"without length": io.MultiReader(strings.NewReader(over)), // chunked
	} {
		req, _ := http.NewRequest("POST", r.base+"/api/sessions/"+id+"/messages", body)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var e struct{ Error string }
		err = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != 413 || err != nil || !strings.Contains(e.Error, "over 256 KiB") {
			t.Errorf("%s: %d %q (%v)", name, resp.StatusCode, e.Error, err)
		}
	}
	// At the limit: taken, and the question is in the transcript once.
	marker := "needle-" + strings.Repeat("q", maxMessageBody-len(wrap(""))-len("needle-"))
	ev := r.events(id, "")
	r.must(202, "POST", "/api/sessions/"+id+"/messages", wrap(marker), nil)
	ev.until(idle)
	data, err := os.ReadFile(filepath.Join(r.srv.cfg.Factory.Config().SessionsDir, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), marker); n != 1 {
		t.Errorf("the question is stored %d times in the transcript (%d bytes), want once", n, len(data))
	}
	var info struct{ Turns []struct{ Question string } }
	r.must(200, "GET", "/api/sessions/"+id, nil, &info)
	if len(info.Turns) != 1 || info.Turns[0].Question != marker {
		t.Errorf("the turn's question did not come back whole")
	}
	// And it comes back whole from the transcript alone.
	r.must(200, "DELETE", "/api/sessions/"+id, nil, nil)
	r.must(200, "GET", "/api/sessions/"+id, nil, &info)
	if len(info.Turns) != 1 || info.Turns[0].Question != marker {
		t.Errorf("the reloaded turn's question did not come back whole")
	}
}

// An unknown id is answered from one look at the store, however many
// transcripts it holds: allocations do not grow with the store.
func TestUnknownIDWithoutScan(t *testing.T) {
	r := newRig(t, nil)
	dir := r.srv.cfg.Factory.Config().SessionsDir
	writeStore(t, dir, r.dir, 40, 200)
	allocs := testing.AllocsPerRun(20, func() {
		if err := r.srv.find("20990101-000000-0badc0de"); err == nil {
			t.Fatal("found an unknown id")
		}
	})
	if allocs > 60 {
		t.Errorf("an unknown id cost %.0f allocations: the store was read", allocs)
	}
	// A known one still is found.
	if err := r.srv.find(storeID(7)); err != nil {
		t.Error(err)
	}
}

func storeID(i int) string { return fmt.Sprintf("20260101-0000%02d-%08x", i%60, i) }

// writeStore writes n transcripts of workdir with records records each.
func writeStore(t testing.TB, dir, workdir string, n, records int) {
	t.Helper()
	for i := range n {
		var b strings.Builder
		meta, _ := json.Marshal(agent.Record{Type: "meta", Workdir: workdir, Time: "2026-01-01T00:00:00Z"})
		b.Write(append(meta, '\n'))
		for j := range records {
			rec, _ := json.Marshal(agent.Record{Type: "message", Role: "user", Content: fmt.Sprintf("question %d %s", j, strings.Repeat("x", 200))})
			b.Write(append(rec, '\n'))
		}
		if err := os.WriteFile(filepath.Join(dir, storeID(i)+".jsonl"), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkUnknownID is the cost of a lookup of an id the store lacks,
// with 200 transcripts of 1,000 records (about 45 MB).
func BenchmarkUnknownID(b *testing.B) {
	r := newRig(b, nil)
	writeStore(b, r.srv.cfg.Factory.Config().SessionsDir, r.dir, 200, 1000)
	b.ResetTimer()
	for b.Loop() {
		r.srv.find("20990101-000000-0badc0de")
	}
}

// A session another process writes can be looked at (its transcript is
// read without its lock); sending to it is answered 409, naming the
// process.
func TestLockedSession409(t *testing.T) {
	r := newRig(t, nil)
	dir := r.srv.cfg.Factory.Config().SessionsDir
	writeStore(t, dir, r.dir, 1, 2)
	// Another writer: a second open file of the same transcript holds it,
	// as another process would.
	tr, err := transcript.Open(filepath.Join(dir, storeID(0)+".jsonl"), "")
	if err != nil {
		t.Fatal(err)
	}
	var info struct{ Turns []struct{ Question string } }
	code, body := r.call("GET", "/api/sessions/"+storeID(0), nil, &info)
	if code != 200 || len(info.Turns) != 2 {
		t.Errorf("looking at it: %d %s, want 200 with its 2 turns", code, body)
	}
	code, body = r.call("POST", "/api/sessions/"+storeID(0)+"/messages", `{"text":"hi"}`, nil)
	if code != 409 || !strings.Contains(body, fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(body, "being written by another aci process") {
		t.Errorf("a message to it: %d %s, want 409 naming the writer", code, body)
	}
	tr.Close()
	if code, body := r.call("GET", "/api/sessions/"+storeID(0), nil, nil); code != 200 {
		t.Errorf("once the other writer is gone: %d %s", code, body)
	}
}

// GET /api/models lists the model server's models and the configured one;
// a model server that lists none gives an empty list and says why.
func TestModels(t *testing.T) {
	r := newRig(t, nil)
	r.ai.SetInfo(fakeai.Info{Models: []string{"test-model", "other-model"}})
	var got struct {
		Default string
		Models  []string
	}
	r.must(200, "GET", "/api/models", nil, &got)
	if got.Default != "test-model" || strings.Join(got.Models, ",") != "test-model,other-model" {
		t.Errorf("models %+v", got)
	}
	r.ai.SetInfo(fakeai.Info{})
	if code, body := r.call("GET", "/api/models", nil, nil); code != 200 || !strings.Contains(body, `"models":[]`) || !strings.Contains(body, `"error":"the model server does not list`) {
		t.Errorf("no list: %d %s", code, body)
	}
}

// BenchmarkScanStore is what an unknown id cost before it was looked up
// directly: replaying the whole store (as GET /api/sessions still does).
func BenchmarkScanStore(b *testing.B) {
	r := newRig(b, nil)
	writeStore(b, r.srv.cfg.Factory.Config().SessionsDir, r.dir, 200, 1000)
	b.ResetTimer()
	for b.Loop() {
		r.srv.saved()
	}
}

// BenchmarkLargestMessage is the memory one question at the 256 KiB limit
// costs the server end to end: the request, the turn (one model request
// with the question), the transcript and the events (B/op; the fake
// model's own copy of the request is included).
func BenchmarkLargestMessage(b *testing.B) {
	r := newRig(b, nil)
	r.ai.Handle(func(fakeai.Request) fakeai.Reply { return fakeai.Reply{Content: "Read it."} })
	text := strings.Repeat("q", benchMessageSize)
	b.ResetTimer()
	for b.Loop() {
		id, ev := r.followedSession()
		r.ask(id, text)
		ev.until(idle)
		ev.close()
		r.must(200, "DELETE", "/api/sessions/"+id, nil, nil)
	}
}

// benchMessageSize is the question BenchmarkLargestMessage sends; set it
// to 1 to see the cost of a session and turn without it.
var benchMessageSize = maxMessageBody - len(`{"text":""}`)

// Every authenticated API answer names the run of the server that gave it;
// a restarted server has a new name, and a refused request learns none.
func TestInstanceHeader(t *testing.T) {
	one, two := newRig(t, nil), newRig(t, nil)
	get := func(r *rig, headers ...string) string {
		resp := r.request("GET", "/api/sessions", nil, headers...)
		resp.Body.Close()
		return resp.Header.Get(instanceHeader)
	}
	a, b := get(one), get(two)
	if a == "" || b == "" || a == b || get(one) != a {
		t.Errorf("instances %q, %q", a, b)
	}
	if got := get(one, "Authorization: "); got != "" {
		t.Errorf("a 401 names the instance %q", got)
	}
}
