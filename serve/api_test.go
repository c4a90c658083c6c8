package serve

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

func TestAccess(t *testing.T) {
	r := newRig(t, nil)
	port := r.hs.Listener.Addr().String()[len("127.0.0.1:"):]
	tests := []struct {
		name    string
		method  string
		path    string
		headers []string
		want    int
	}{
		{"token", "GET", "/api/sessions", nil, 200},
		{"no token", "GET", "/api/sessions", []string{"Authorization: "}, 401},
		{"wrong token", "GET", "/api/sessions", []string{"Authorization: Bearer " + strings.Repeat("x", len(testToken))}, 401},
		{"token prefix", "GET", "/api/sessions", []string{"Authorization: Bearer " + testToken[:10]}, 401},
		{"basic scheme", "GET", "/api/sessions", []string{"Authorization: Basic " + testToken}, 401},
		{"cookie only", "GET", "/api/sessions", []string{"Authorization: ", "Cookie: aci_token=" + testToken}, 401},
		{"cookie only, events", "GET", "/api/sessions/x/events", []string{"Authorization: ", "Cookie: aci_token=" + testToken}, 401},
		{"token in the query", "GET", "/api/sessions?token=" + testToken, []string{"Authorization: "}, 401},
		{"assets without token", "GET", "/assets/app.js", []string{"Authorization: "}, 404},
		{"page without token", "GET", "/", []string{"Authorization: "}, 200},
		{"openapi without token", "GET", "/api/openapi.json", []string{"Authorization: "}, 401},
		{"unknown path without token", "GET", "/api/nothing", []string{"Authorization: "}, 401},
		{"localhost", "GET", "/api/sessions", []string{"Host: localhost:" + port}, 200},
		{"rebound name", "GET", "/api/sessions", []string{"Host: evil.example:" + port}, 403},
		{"rebound name, page", "GET", "/", []string{"Host: evil.example:" + port}, 403},
		{"other port", "GET", "/api/sessions", []string{"Host: 127.0.0.1:1"}, 403},
		{"other address", "GET", "/api/sessions", []string{"Host: 10.1.2.3:" + port}, 403},
		{"own origin", "GET", "/api/sessions", []string{"Origin: " + r.base}, 200},
		{"localhost origin", "POST", "/api/sessions", []string{"Origin: http://localhost:" + port}, 201},
		{"localhost host and origin", "GET", "/api/sessions", []string{"Host: localhost:" + port, "Origin: http://localhost:" + port}, 200},
		{"localhost host, own origin", "GET", "/api/sessions", []string{"Host: localhost:" + port, "Origin: " + r.base}, 200},
		{"localhost origin, other port", "GET", "/api/sessions", []string{"Origin: http://localhost:1"}, 403},
		{"rebound origin", "GET", "/api/sessions", []string{"Origin: http://evil.example:" + port}, 403},
		{"origin without host", "GET", "/api/sessions", []string{"Origin: http://"}, 403},
		{"other origin", "GET", "/api/sessions", []string{"Origin: http://evil.example"}, 403},
		{"other origin with cookie", "POST", "/api/sessions", []string{"Authorization: ", "Cookie: aci_token=" + testToken, "Origin: http://evil.example"}, 403},
		{"https origin", "GET", "/api/sessions", []string{"Origin: https://" + r.base[len("http://"):]}, 403},
		{"null origin", "GET", "/api/sessions", []string{"Origin: null"}, 403},
		{"preflight", "OPTIONS", "/api/sessions", []string{"Authorization: ", "Origin: http://evil.example", "Access-Control-Request-Method: POST"}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := r.request(tt.method, tt.path, nil, tt.headers...)
			defer resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
			for k := range resp.Header {
				if strings.HasPrefix(strings.ToLower(k), "access-control-") {
					t.Errorf("CORS header %s", k)
				}
			}
			if tt.want >= 400 {
				var e struct{ Error string }
				if json.NewDecoder(resp.Body).Decode(&e) != nil || e.Error == "" || strings.Contains(e.Error, "\n") {
					t.Errorf("error body is not {\"error\": one line}")
				}
			}
		})
	}
}

// The page's address carries the token in its fragment, which no request
// holds: GET / sets no cookie and redirects nowhere, whatever its query.
func TestPageSetsNoCookie(t *testing.T) {
	r := newRig(t, nil)
	for _, path := range []string{"/", "/?token=" + testToken} {
		resp := r.request("GET", path, nil, "Authorization: ")
		resp.Body.Close()
		if resp.StatusCode != 200 || len(resp.Cookies()) != 0 || resp.Header.Get("Set-Cookie") != "" {
			t.Errorf("GET %s: %d, cookies %v", path, resp.StatusCode, resp.Cookies())
		}
	}
	if u := r.srv.URL(r.hs.Listener.Addr()); !strings.HasSuffix(u, "/#token="+testToken) || strings.Contains(u, "?") {
		t.Errorf("the printed address is %s, want the token in the fragment", u)
	}
}

func TestErrors(t *testing.T) {
	r := newRig(t, []fakeai.Reply{{Content: "hello"}})
	id := r.newSession()
	tests := []struct {
		name, method, path string
		body               any
		want               int
		says               string
	}{
		{"unknown session", "GET", "/api/sessions/nope", nil, 404, "no session"},
		{"unknown session messages", "POST", "/api/sessions/nope/messages", `{"text":"hi"}`, 404, "no session"},
		{"unknown session events", "GET", "/api/sessions/nope/events", nil, 404, "no session"},
		{"unknown session delete", "DELETE", "/api/sessions/nope", nil, 404, "no session"},
		{"unknown session cancel", "POST", "/api/sessions/nope/cancel", nil, 404, "no session"},
		{"unknown session fork", "POST", "/api/sessions/nope/fork", `{"turn":1}`, 404, "no session"},
		{"traversal", "GET", "/api/sessions/..%2F..%2Fetc", nil, 404, "no such endpoint"},
		{"literal dots", "GET", "/api/sessions/../sessions", nil, 404, "no such endpoint"},
		{"literal dots out of the API", "GET", "/api/../etc/passwd", nil, 404, "no such endpoint"},
		{"dot", "GET", "/api/./sessions", nil, 404, "no such endpoint"},
		{"double slash", "GET", "/api//sessions", nil, 404, "no such endpoint"},
		{"trailing slash", "GET", "/api/sessions/", nil, 404, "no such endpoint"},
		{"unknown id", "GET", "/api/sessions/20260101-000000-00000000", nil, 404, "no session"},
		{"unknown window", "GET", "/api/sessions/" + id + "/windows/bash_9", nil, 404, "no window"},
		{"unknown request", "POST", "/api/sessions/" + id + "/approvals/req_9", `{"decision":"allow"}`, 404, "no question"},
		{"bad decision", "POST", "/api/sessions/" + id + "/approvals/req_1", `{"decision":"yes"}`, 400, "decision"},
		{"empty question", "POST", "/api/sessions/" + id + "/messages", `{"text":""}`, 400, "text"},
		{"not JSON", "POST", "/api/sessions/" + id + "/messages", `hello`, 400, "JSON"},
		{"unknown field", "POST", "/api/sessions", `{"modle":"x"}`, 400, "unknown field"},
		{"fork past the turns", "POST", "/api/sessions/" + id + "/fork", `{"turn":3}`, 400, "0 turns"},
		{"fork zero", "POST", "/api/sessions/" + id + "/fork", `{"turn":0}`, 400, "1 or more"},
		{"bad Last-Event-ID", "GET", "/api/sessions/" + id + "/events", nil, 400, "Last-Event-ID"},
		{"too big", "POST", "/api/sessions/" + id + "/messages", `{"text":"` + strings.Repeat("a", maxMessageBody) + `"}`, 413, "over 256 KiB"},
		{"unknown endpoint", "GET", "/api/everything", nil, 404, "no such endpoint"},
		{"wrong method", "PUT", "/api/sessions/" + id, nil, 405, "use GET, DELETE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers []string
			if tt.name == "bad Last-Event-ID" {
				headers = []string{"Last-Event-ID: seven"}
			}
			code, body := r.call(tt.method, tt.path, tt.body, nil, headers...)
			var e struct{ Error string }
			if code != tt.want || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error, tt.says) {
				t.Errorf("%d %s, want %d saying %q", code, body, tt.want, tt.says)
			}
		})
	}
}

func TestSessionLifecycle(t *testing.T) {
	r := newRig(t, []fakeai.Reply{
		{Content: "Opening.\n" + fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": "notes.txt"}))},
		{Content: "The notes say hello."},
		{Content: "Second answer."},
	})
	os.WriteFile(filepath.Join(r.dir, "notes.txt"), []byte("hello\n"), 0o644)
	var created map[string]any
	r.must(201, "POST", "/api/sessions", `{"model":"other-model"}`, &created)
	id := created["id"].(string)
	if created["model"] != "other-model" || created["cwd"] != r.dir || created["state"] != "idle" {
		t.Errorf("created %v", created)
	}
	ev := r.events(id, "")
	if n := r.ask(id, "what do the notes say?"); n != 1 {
		t.Errorf("turn %d", n)
	}
	ev.until(idle)
	if got := r.ai.Requests()[0].Model; got != "other-model" {
		t.Errorf("model sent %q", got)
	}

	var info struct {
		ID, Model, Cwd, State, Parent string
		FromTurn                      int `json:"from_turn"`
		Turns                         []struct {
			Index            int
			Question, Answer string
		}
		Windows []struct{ ID, App, Title string }
		Usage   map[string]int
	}
	r.must(200, "GET", "/api/sessions/"+id, nil, &info)
	if info.ID != id || info.State != "idle" || len(info.Turns) != 1 || info.Turns[0].Question != "what do the notes say?" || info.Turns[0].Answer != "The notes say hello." {
		t.Errorf("info %+v", info)
	}
	if len(info.Windows) != 2 || info.Windows[1].ID != "file_1" || info.Windows[1].Title != "notes.txt" || info.Usage["prompt_tokens"] == 0 {
		t.Errorf("windows %+v usage %v", info.Windows, info.Usage)
	}
	var win map[string]any
	r.must(200, "GET", "/api/sessions/"+id+"/windows/file_1", nil, &win)
	if win["app"] != "file" || !strings.Contains(win["content"].(string), "hello") {
		t.Errorf("window %v", win)
	}

	var list []map[string]any
	r.must(200, "GET", "/api/sessions", nil, &list)
	if len(list) != 1 || list[0]["id"] != id || list[0]["title"] != "what do the notes say?" || list[0]["turns"] != 1.0 || list[0]["state"] != "idle" {
		t.Errorf("list %v", list)
	}
	for _, k := range []string{"created", "updated", "parent", "from_turn"} {
		if _, ok := list[0][k]; !ok {
			t.Errorf("list lacks %q", k)
		}
	}
	r.must(200, "POST", "/api/sessions/"+id+"/cancel", nil, nil) // idle: nothing to end

	// DELETE ends the session; its transcript stays and loads again.
	r.must(200, "DELETE", "/api/sessions/"+id, nil, nil)
	if ss := r.srv.lookup(id); ss != nil {
		t.Fatal("still live after DELETE")
	}
	r.must(200, "GET", "/api/sessions", nil, &list)
	if len(list) != 1 || list[0]["id"] != id {
		t.Errorf("list after delete %v", list)
	}
	r.must(200, "DELETE", "/api/sessions/"+id, nil, nil) // on disk only: nothing to end
	r.must(200, "GET", "/api/sessions/"+id, nil, &info)
	if info.State != "idle" || len(info.Turns) != 1 || len(info.Windows) != 2 {
		t.Errorf("reloaded %+v", info)
	}
	ev = r.events(id, "")
	r.ask(id, "and again?")
	ev.until(idle)
	reqs := r.ai.Requests()
	last := reqs[len(reqs)-1]
	joined := ""
	for _, m := range last.Messages {
		joined += m.Content + "\n"
	}
	if !strings.Contains(joined, "what do the notes say?") || !strings.Contains(joined, "The notes say hello.") {
		t.Errorf("the reloaded session lost its history:\n%s", joined)
	}

	r.must(200, "GET", "/api/openapi.json", nil, nil)
}

// A message sent while a turn runs joins it (202 with steer); Cancel
// drops those the model has not seen and the result lists them unread.
func TestSteerAndCancel(t *testing.T) {
	r := newRig(t, []fakeai.Reply{{Hang: true}, {Content: "after"}})
	id, ev := r.followedSession()
	r.ask(id, "first")
	r.ai.WaitRequests(1, 10*time.Second)
	var got struct {
		Turn  int
		Steer bool
	}
	r.must(202, "POST", "/api/sessions/"+id+"/messages", `{"text":"second thoughts"}`, &got)
	if got.Turn != 1 || !got.Steer {
		t.Errorf("a message while a turn runs: %+v, want turn 1 and steer", got)
	}
	code, _ := r.call("POST", "/api/sessions/"+id+"/fork", `{"turn":1}`, nil)
	if code != 409 {
		t.Errorf("fork at the running turn: %d", code)
	}
	r.must(200, "POST", "/api/sessions/"+id+"/cancel", nil, nil)
	evs := ev.until(idle)
	res := evs[len(evs)-2]
	unread, _ := res.Data["unread"].([]any)
	if res.Type != "result" || res.Data["is_error"] != true || res.Data["error"] != "interrupted" || len(unread) != 1 || unread[0] != "second thoughts" {
		t.Errorf("cancelled turn's result %+v", res)
	}
	if n := r.ask(id, "second"); n != 2 {
		t.Errorf("the next question is turn %d", n)
	}
	ev.until(idle)
}

// GET /api/sessions/{id} lists every turn with its actions and their
// output and the messages steered into it, live and once reloaded.
func TestHistoryWithActions(t *testing.T) {
	r := newRig(t, []fakeai.Reply{
		{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
		{Content: fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "echo history-output"}))},
		{Content: "done"},
	})
	id, ev := r.followedSession()
	r.ask(id, "run it")
	ev.until(idle)
	type info struct {
		Turns []struct {
			Index    int
			Question string
			Answer   string
			Actions  []struct {
				CallID   string `json:"call_id"`
				WindowID string `json:"window_id"`
				ActionID string `json:"action_id"`
				Params   map[string]any
				Status   string
				Output   string
			}
			Steers []string
		}
	}
	check := func(when string) {
		var got info
		r.must(200, "GET", "/api/sessions/"+id, nil, &got)
		if len(got.Turns) != 1 || len(got.Turns[0].Actions) != 2 || got.Turns[0].Steers == nil {
			t.Fatalf("%s: %+v", when, got)
		}
		a := got.Turns[0].Actions[1]
		if a.CallID == "" || a.WindowID != "bash_1" || a.ActionID != "run" || a.Status != "ok" || a.Params["command"] != "echo history-output" || !strings.Contains(a.Output, "history-output") {
			t.Errorf("%s: action %+v", when, a)
		}
	}
	check("live")
	r.must(200, "DELETE", "/api/sessions/"+id, nil, nil)
	check("reloaded from the transcript")
}

// The page handler serves / and its assets without the token (they hold
// no data); API paths never reach it.
func TestPageMount(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("page:" + r.URL.Path))
	})
	r := newRig(t, nil, func(_ *sessionConfig, c *Config) { c.Page = page })
	tests := []struct {
		path    string
		headers []string
		want    int
		body    string
	}{
		{"/", []string{"Authorization: "}, 200, "page:/"},
		{"/assets/app.js", []string{"Authorization: "}, 200, "page:/assets/app.js"},
		{"/assets/../api/sessions", []string{"Authorization: "}, 404, `"error"`},
		{"/api/nothing", nil, 404, `"error"`},
	}
	for _, tt := range tests {
		code, body := r.call("GET", tt.path, nil, nil, tt.headers...)
		if code != tt.want || !strings.Contains(body, tt.body) {
			t.Errorf("GET %s: %d %q, want %d %q", tt.path, code, body, tt.want, tt.body)
		}
	}
}
