package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A branch holds the first turns of its parent and nothing after them.
func TestFork(t *testing.T) {
	r := newRig(t, []fakeai.Reply{{Content: "ANSWER-ONE"}, {Content: "ANSWER-TWO"}, {Content: "BRANCH-ANSWER"}})
	id, ev := r.followedSession()
	r.ask(id, "QUESTION-ONE")
	ev.until(idle)
	r.ask(id, "QUESTION-TWO")
	ev.until(idle)

	var fork struct {
		ID, Parent string
		FromTurn   int `json:"from_turn"`
	}
	r.must(201, "POST", "/api/sessions/"+id+"/fork", `{"turn":1}`, &fork)
	if fork.ID == "" || fork.ID == id || fork.Parent != id || fork.FromTurn != 1 {
		t.Fatalf("fork %+v", fork)
	}
	fev := r.events(fork.ID, "")
	r.ask(fork.ID, "BRANCH-QUESTION")
	fev.until(idle)
	reqs := r.ai.Requests()
	sent := ""
	for _, m := range reqs[len(reqs)-1].Messages {
		sent += m.Content + "\n"
	}
	for _, want := range []string{"QUESTION-ONE", "ANSWER-ONE", "BRANCH-QUESTION"} {
		if !strings.Contains(sent, want) {
			t.Errorf("the branch's request lacks %s", want)
		}
	}
	for _, not := range []string{"QUESTION-TWO", "ANSWER-TWO"} {
		if strings.Contains(sent, not) {
			t.Errorf("the branch's request holds %s, from after the fork", not)
		}
	}
	var info struct {
		Parent   string
		FromTurn int `json:"from_turn"`
		Turns    []struct{ Question string }
	}
	r.must(200, "GET", "/api/sessions/"+fork.ID, nil, &info)
	if info.Parent != id || info.FromTurn != 1 || len(info.Turns) != 2 || info.Turns[1].Question != "BRANCH-QUESTION" {
		t.Errorf("branch %+v", info)
	}
	var parent struct{ Turns []struct{ Question string } }
	r.must(200, "GET", "/api/sessions/"+id, nil, &parent)
	if len(parent.Turns) != 2 {
		t.Errorf("the parent changed: %+v", parent)
	}
	var list []map[string]any
	r.must(200, "GET", "/api/sessions", nil, &list)
	if len(list) != 2 || list[0]["id"] != fork.ID || list[0]["parent"] != id || list[0]["from_turn"] != 1.0 || list[1]["parent"] != "" {
		t.Errorf("list (newest first) %v", list)
	}
}

// A client that reconnects with Last-Event-ID gets what it missed, and
// only that; a new client gets only what happens from then on.
func TestReplay(t *testing.T) {
	r := newRig(t, []fakeai.Reply{{Content: "one"}, {Content: "two"}})
	id, ev := r.followedSession()
	r.ask(id, "first")
	first := ev.until(idle)
	ev.close()

	// From 0: every event kept, which holds every one the stream saw.
	all := r.events(id, "0").until(idle)
	if all[0].ID != 1 || all[len(all)-1].ID != first[len(first)-1].ID || len(all) < len(first) {
		t.Errorf("replay from 0: ids %d..%d, want 1..%d", all[0].ID, all[len(all)-1].ID, first[len(first)-1].ID)
	}
	mid := first[2].ID
	rest := r.events(id, fmt.Sprint(mid)).until(idle)
	if rest[0].ID != mid+1 || len(rest) != len(first)-3 {
		t.Errorf("replay after %d starts at %d with %d events", mid, rest[0].ID, len(rest))
	}
	fresh := r.events(id, "")
	r.ask(id, "second")
	next := fresh.next(10 * time.Second)
	if next.Type != "turn" || next.ID != first[len(first)-1].ID+1 {
		t.Errorf("a new stream began with %s %d, want the next turn", next.Type, next.ID)
	}
	fresh.until(idle)
}

// Two sessions run their turns at the same time, each with its own
// windows.
func TestTwoSessionsAtOnce(t *testing.T) {
	r := newRig(t, nil)
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	r.ai.Handle(func(req fakeai.Request) fakeai.Reply {
		q := req.LastUser()
		word := "beta"
		if strings.Contains(q, "alpha") {
			word = "alpha"
		}
		if strings.Contains(q, "<tool_results>") {
			return fakeai.Reply{Content: "done " + word}
		}
		mu.Lock()
		arrived++
		if arrived == 2 {
			close(both)
		}
		mu.Unlock()
		select { // each waits for the other: they run side by side
		case <-both:
		case <-time.After(10 * time.Second):
			return fakeai.Reply{Content: "alone"}
		}
		return fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "echo " + word}),
		)}
	})
	a, b := r.newSession(), r.newSession()
	evA, evB := r.events(a, ""), r.events(b, "")
	r.ask(a, "alpha")
	r.ask(b, "beta")
	for _, c := range []struct {
		ev   *stream
		id   string
		word string
	}{{evA, a, "alpha"}, {evB, b, "beta"}} {
		evs := c.ev.until(idle)
		res := evs[len(evs)-2].Data
		if res["result"] == "alone" || res["session_id"] != c.id {
			t.Errorf("%s: %v", c.word, res)
		}
		var win map[string]any
		r.must(200, "GET", "/api/sessions/"+c.id+"/windows/bash_1", nil, &win)
		if content := win["content"].(string); !strings.Contains(content, c.word) || strings.Contains(content, map[string]string{"alpha": "beta", "beta": "alpha"}[c.word]) {
			t.Errorf("%s's window: %s", c.word, content)
		}
	}
}

// A client that holds its stream open and never reads neither blocks the
// turn nor makes the server hold more and more: the session drops it, the
// stream ends once a write has waited too long, and the turn finishes.
func TestClientThatNeverReads(t *testing.T) {
	// More than the kernel buffers of a loopback connection hold (4 MB
	// each way at most here), so the server's writes do block.
	const calls, size = 30, 300000
	batch := []fakeai.Call{call("launcher", "open", map[string]any{"app": "bash"})}
	for range calls {
		batch = append(batch, call("bash_1", "run", map[string]any{"command": fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x", size)}))
	}
	r := newRig(t, []fakeai.Reply{{Content: fakeai.ToolCall(batch...)}, {Content: "all printed"}},
		func(sc *sessionConfig, _ *Config) { sc.OutputLimit = size + 1000 })
	r.srv.writeTimeout = time.Second
	id := r.newSession()

	conn, err := net.Dial("tcp", r.hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(conn, "GET /api/sessions/%s/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", id, r.hs.Listener.Addr(), testToken)
	waitFor(t, "the stream to open", func() bool { return r.srv.streams.Load() == 1 })

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	r.ask(id, "print a lot")
	waitFor(t, "the turn to end", func() bool {
		var info struct{ State string }
		r.must(200, "GET", "/api/sessions/"+id, nil, &info)
		return info.State == "idle" && len(r.ai.Requests()) == 2
	})
	t.Logf("turn of %d commands printing %d bytes each: %v with a client not reading", calls, size, time.Since(start))
	waitFor(t, "the stalled stream to end", func() bool { return r.srv.streams.Load() == 0 })

	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap after the turn: %+d KB", grew/1024)
	// The session keeps its last 1,000 events (here a few hundred KB each
	// at most): bounded, whatever the client.
	if grew > 100<<20 {
		t.Errorf("the heap grew by %d MB", grew>>20)
	}
	all := r.events(id, "0")
	all.close()
	n := 0
	for range all.events {
		n++
	}
	if n > 1000 {
		t.Errorf("the session kept %d events, more than 1,000", n)
	}
	// What reached the stalled client is well short of what was sent.
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	rd := bufio.NewReader(conn)
	got := 0
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		if strings.HasPrefix(line, "event: tool_result") {
			got++
		}
	}
	if got >= calls {
		t.Errorf("the stalled client got all %d results: it was never dropped", got)
	}
	t.Logf("the stalled client had %d of %d results queued for it when dropped", got, calls)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Secrets in a file shown in a window, or in the model's answer, do not
// come back through GET window, the session or the events.
func TestSecretsNeverInResponses(t *testing.T) {
	secret := "ghp_servesecretvalue0123456789abcdef"
	t.Setenv("GITHUB_TOKEN", secret)
	r := newRig(t, []fakeai.Reply{
		{Content: "Reading.\n" + fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "file", "target": "config.txt"}),
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "cat config.txt"}),
		)},
		{Content: "The token is " + secret + " and the key " + testKey},
	})
	addSecret(secret)
	os.WriteFile(filepath.Join(r.dir, "config.txt"), []byte("token="+secret+"\nkey="+testKey+"\n"), 0o644)
	id, ev := r.followedSession()
	r.ask(id, "what is in config.txt?")
	var evs []event
	for {
		got := ev.until(func(e event) bool { return idle(e) || e.Type == "approval" })
		evs = append(evs, got...)
		last := got[len(got)-1]
		if last.Type != "approval" {
			break
		}
		r.must(200, "POST", "/api/sessions/"+id+"/approvals/"+last.Data["request_id"].(string), `{"decision":"allow"}`, nil)
	}
	var seen strings.Builder
	for _, e := range evs {
		seen.WriteString(e.Raw)
	}
	for _, path := range []string{"/api/sessions/" + id, "/api/sessions/" + id + "/windows/file_1", "/api/sessions/" + id + "/windows/bash_1", "/api/sessions"} {
		seen.WriteString(r.must(200, "GET", path, nil, nil))
	}
	replay := r.events(id, "0")
	for _, e := range replay.until(idle) {
		seen.WriteString(e.Raw)
	}
	out := seen.String()
	if !strings.Contains(out, "[REDACTED]") || !strings.Contains(out, "token=") {
		t.Fatalf("the test saw nothing of the file: %.500s", out)
	}
	for _, s := range []string{secret, testKey} {
		if strings.Contains(out, s) {
			t.Errorf("%.12s… came back in a response", s)
		}
	}
	var win map[string]any
	json.Unmarshal([]byte(r.must(200, "GET", "/api/sessions/"+id+"/windows/file_1", nil, nil)), &win)
	if !strings.Contains(win["content"].(string), "token=[REDACTED]") {
		t.Errorf("file window: %v", win["content"])
	}
}

// An idle stream gets a comment now and then, so proxies keep it open.
func TestHeartbeat(t *testing.T) {
	r := newRig(t, nil, func(_ *sessionConfig, c *Config) { c.Heartbeat = 50 * time.Millisecond })
	id := r.newSession()
	resp := r.request("GET", "/api/sessions/"+id+"/events", nil)
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	pings := 0
	deadline := time.Now().Add(10 * time.Second)
	for pings < 2 && time.Now().Before(deadline) {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == ": ping\n" {
			pings++
		}
	}
	if pings < 2 {
		t.Errorf("%d heartbeats", pings)
	}
}

// A background task that writes after its turn ended reaches a watching
// client as a window event.
func TestWindowEventsBetweenTurns(t *testing.T) {
	r := newRig(t, []fakeai.Reply{
		{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "start", map[string]any{"command": "sleep 1; echo late-output"}),
		)},
		{Content: "Started."},
	})
	id, ev := r.followedSession()
	r.ask(id, "start it")
	ev.until(idle)
	ev.until(func(e event) bool { // fails the test when none comes
		return e.Type == "window" && e.Data["id"] == "bash_1" && strings.Contains(fmt.Sprint(e.Data["content"]), "late-output")
	})
}
