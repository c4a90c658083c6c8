//go:build unix

package ui

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/sse"
)

// servedPage is what /serve printed: the server's base, token and the
// REPL's session id.
type servedPage struct {
	t                 *testing.T
	base, token, sess string
}

var pageAddr = regexp.MustCompile(`web page: (http://[0-9.:]+)/\S*token=([A-Za-z0-9_-]+)\S*[#&](?:session=)?([0-9a-f-]+)`)

func readPageAddr(t *testing.T, scr string) servedPage {
	t.Helper()
	m := pageAddr.FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("no page address on the screen:\n%s", scr)
	}
	return servedPage{t: t, base: m[1], token: m[2], sess: m[3]}
}

func (p servedPage) do(method, path, body string) (int, string) {
	p.t.Helper()
	req, _ := http.NewRequest(method, p.base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+p.token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

// events reads the session's event stream; each event's type and data go
// to the channel.
func (p servedPage) events(ctx context.Context) <-chan [2]string {
	p.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", p.base+"/api/sessions/"+p.sess+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+p.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		p.t.Fatalf("events: %v %v", res, err)
	}
	ch := make(chan [2]string, 1000)
	go func() {
		defer res.Body.Close()
		defer close(ch)
		sse.Read(res.Body, func(ev sse.Event) { ch <- [2]string{ev.Type, ev.Data} })
	}()
	return ch
}

func waitEvent(t *testing.T, ch <-chan [2]string, match func(typ, data string) bool) string {
	t.Helper()
	timeout := time.After(waitLimit)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("the event stream ended")
			}
			if match(ev[0], ev[1]) {
				return ev[1]
			}
		case <-timeout:
			t.Fatal("the event wanted did not come")
		}
	}
}

// --serve serves the REPL's session: the API shows its turns with their
// actions; a question is offered to both sides and the first answer wins,
// the other side saying who decided; a message sent from the page while
// the turn runs joins it.
func TestREPLServeSharesTheSession(t *testing.T) {
	t.Parallel()
	srv, one, two := twoWritesOutside(t)
	s := startREPL(t, srv, nil, "--serve", "127.0.0.1:0")
	scr := s.waitPrompt()
	p := readPageAddr(t, scr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	evs := p.events(ctx)

	s.typeLine("write both files")
	s.waitFor("also asked on the web page")
	data := waitEvent(t, evs, func(typ, _ string) bool { return typ == "approval" })
	var q struct {
		RequestID string `json:"request_id"`
	}
	json.Unmarshal([]byte(data), &q)
	// The page answers the first question; the terminal says so.
	if code, body := p.do("POST", "/api/sessions/"+p.sess+"/approvals/"+q.RequestID, `{"decision":"allow"}`); code != 200 {
		t.Fatalf("answer from the page: %d %s", code, body)
	}
	s.waitFor("✓ allowed from the web page")
	// The terminal answers the second; the page hears who decided.
	waitEvent(t, evs, func(typ, _ string) bool { return typ == "approval" })
	s.waitUntil("the second question", func(scr string) bool { return strings.Count(scr, "allow? ›") == 2 })
	s.typeLine("y")
	waitEvent(t, evs, func(typ, d string) bool { return typ == "notice" && strings.Contains(d, `"by":"terminal"`) })
	s.waitFor("both written")
	if os.Getenv("ACI_TEST_SHOW") != "" {
		t.Log(s.waitPrompt())
	}
	s.waitPrompt()
	for _, f := range []string{one, two} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("an allowed write did not happen: %v", err)
		}
	}
	code, body := p.do("GET", "/api/sessions/"+p.sess, "")
	if code != 200 || !strings.Contains(body, `"question":"write both files"`) || !strings.Contains(body, `"action_id":"write"`) {
		t.Errorf("the served session: %d %s", code, body)
	}
	// Its turns start in the terminal; the server does not end it.
	if code, _ := p.do("POST", "/api/sessions/"+p.sess+"/messages", `{"text":"from the page"}`); code != 409 {
		t.Errorf("a question from the page while the REPL is idle: %d, want 409", code)
	}
	if code, _ := p.do("DELETE", "/api/sessions/"+p.sess, ""); code != 409 {
		t.Errorf("DELETE of the terminal's session: %d, want 409", code)
	}
}

// A message sent from the page while the REPL's turn runs joins the turn;
// the REPL shows it.
func TestREPLServeSteerFromThePage(t *testing.T) {
	t.Parallel()
	srv := gateModel(t, "heard the page")
	s := readyREPL(t, srv, nil)
	s.typeLine("/serve 127.0.0.1:0")
	p := readPageAddr(t, s.waitFor("web page: "))
	s.waitPrompt()
	s.typeLine("run the gate")
	srv.WaitRequests(2, waitLimit)
	s.waitFor("running")
	code, body := p.do("POST", "/api/sessions/"+p.sess+"/messages", `{"text":"from the page"}`)
	if code != 202 || !strings.Contains(body, `"steer":true`) {
		t.Fatalf("a message from the page during the turn: %d %s", code, body)
	}
	os.WriteFile(filepath.Join(s.work, "go"), nil, 0o644)
	s.waitFor("added to the turn from the web page")
	s.waitFor("heard the page")
	reqs := srv.Requests()
	if !mentions(reqs[len(reqs)-1], "from the page") {
		t.Errorf("the last request lacks the page's message")
	}
}

// twoWritesOutside is a model that writes two files outside the workspace,
// one batch each (each write is asked), then answers; and the two paths.
func twoWritesOutside(t *testing.T) (srv *fakeai.Server, one, two string) {
	outside := t.TempDir()
	one, two = filepath.Join(outside, "one.txt"), filepath.Join(outside, "two.txt")
	srv = fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": one}},
			fakeai.Call{Window: "file_1", Action: "write", Params: map[string]any{"content": "one\n"}},
		)},
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": two}},
			fakeai.Call{Window: "file_2", Action: "write", Params: map[string]any{"content": "two\n"}},
		)},
		fakeai.Reply{Content: "both written"},
	)
	return srv, one, two
}
