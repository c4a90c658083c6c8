package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/windows"
)

// act is one call of a batch; batch wraps calls as a reply carries them.
func act(window, action, params string) string {
	return `{"window_id":"` + window + `","action_id":"` + action + `","params":` + params + `}`
}

func batch(calls ...string) string {
	return `<tool_call>{"calls":[` + strings.Join(calls, ",") + `]}</tool_call>`
}

// script answers each conversation by its step (its number of replies so
// far, plus one): a child's is found by its task, the parent's is "".
type script map[string]func(step int, req fakeai.Request) fakeai.Reply

// conversationOf names the conversation a request belongs to.
func (sc script) conversationOf(req fakeai.Request) string {
	if len(req.Messages) > 1 && strings.Contains(req.Messages[1].Content, childIntro) {
		for key := range sc {
			if key != "" && strings.Contains(req.Messages[1].Content, "Task: "+key) {
				return key
			}
		}
		return "?"
	}
	return ""
}

func (sc script) serve(t *testing.T) func(fakeai.Request) fakeai.Reply {
	return func(req fakeai.Request) fakeai.Reply {
		key := sc.conversationOf(req)
		f, ok := sc[key]
		if !ok {
			t.Errorf("request of no scripted conversation: %.300q", req.Messages[1].Content)
			return fakeai.Reply{Content: "?"}
		}
		step := req.Step()
		return f(step, req)
	}
}

// steps is a conversation's replies in order; past the last it repeats it.
func steps(replies ...string) func(int, fakeai.Request) fakeai.Reply {
	return func(step int, _ fakeai.Request) fakeai.Reply {
		return fakeai.Reply{Content: replies[min(step, len(replies))-1]}
	}
}

// agentSession is a session on a fake answering by sc, and its events.
func agentSession(t *testing.T, sc script, maxSteps int) (*Session, <-chan Numbered, *fakeai.Server, string) {
	t.Helper()
	srv := fakeai.New(t)
	srv.Handle(sc.serve(t))
	work := t.TempDir()
	f := NewFactory(Config{
		Client:          agent.ClientConfig{BaseURL: srv.URL, APIKey: "sk-test-secret-key-123456", Model: "m", Stream: true},
		Agent:           agent.Config{BasePrompt: "You are aci.", MaxSteps: maxSteps},
		SessionsDir:     t.TempDir(),
		ApprovalTimeout: 5 * time.Second,
	})
	s, err := f.New(context.Background(), Options{Workdir: work})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	_, live, stop := s.Subscribe(0)
	t.Cleanup(stop)
	return s, live, srv, work
}

// of is the requests of one conversation.
func of(sc script, reqs []fakeai.Request, key string) []fakeai.Request {
	var out []fakeai.Request
	for _, r := range reqs {
		if sc.conversationOf(r) == key {
			out = append(out, r)
		}
	}
	return out
}

func body(r fakeai.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

func TestAgentOwnConversationAndAnswerOnly(t *testing.T) {
	sc := script{
		"": steps(
			"Asking a helper."+batch(act("launcher", "open", `{"app":"agent","target":"read notes.txt and say its word"}`), act("agent_1", "wait", `{}`)),
			"The word is kiwi."),
		"read notes.txt and say its word": steps(
			call("launcher", "open", `{"app":"file","target":"notes.txt"}`),
			"The word is kiwi."),
	}
	s, _, srv, work := agentSession(t, sc, 0)
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("kiwi\nINSIDE-THE-FILE-ONLY\n"), 0o644)
	answer, err := asked(context.Background(), s, "what word is in notes.txt?")
	if err != nil || answer != "The word is kiwi." {
		t.Fatalf("Run: %q, %v", answer, err)
	}
	reqs := srv.Requests()
	kid := of(sc, reqs, "read notes.txt and say its word")
	if len(kid) != 2 {
		t.Fatalf("child made %d requests, want 2", len(kid))
	}
	first := kid[0]
	if len(first.Messages) != 2 || first.Messages[0].Role != "system" || first.Messages[1].Role != "user" {
		t.Fatalf("child's first request is not its own system message and task: %d messages", len(first.Messages))
	}
	if strings.Contains(body(first), "what word is in notes.txt?") {
		t.Error("the child's request holds the parent's question")
	}
	if strings.Contains(body(first), "- agent:") {
		t.Error("the child's launcher offers agents")
	}
	parent := of(sc, reqs, "")
	last := body(parent[len(parent)-1])
	for _, want := range []string{"answered (plan: read-only) · 1 action: launcher.open", "answer:\nThe word is kiwi."} {
		if !strings.Contains(last, want) {
			t.Errorf("parent's last request lacks %q:\n%s", want, last)
		}
	}
	if strings.Contains(last, "INSIDE-THE-FILE-ONLY") {
		t.Error("what the child read reached the parent's context")
	}
	if !strings.Contains(last, `status="started"`) && !strings.Contains(last, "started") {
		t.Errorf("open's result is not started:\n%s", last)
	}
}

func TestAgentsRunAtOnce(t *testing.T) {
	var mu sync.Mutex
	arrived := map[string]bool{}
	both := make(chan struct{})
	meet := func(name string) func(int, fakeai.Request) fakeai.Reply {
		return func(step int, _ fakeai.Request) fakeai.Reply {
			mu.Lock()
			arrived[name] = true
			if len(arrived) == 2 {
				select {
				case <-both:
				default:
					close(both)
				}
			}
			mu.Unlock()
			select {
			case <-both:
				return fakeai.Reply{Content: name + " done while the other ran"}
			case <-time.After(10 * time.Second):
				return fakeai.Reply{Content: name + " alone"}
			}
		}
	}
	sc := script{
		"": steps(
			batch(act("launcher", "open", `{"app":"agent","target":"task one"}`), act("launcher", "open", `{"app":"agent","target":"task two"}`),
				act("agent_1", "wait", `{}`), act("agent_2", "wait", `{}`)),
			"Both done."),
		"task one": meet("one"),
		"task two": meet("two"),
	}
	s, _, srv, _ := agentSession(t, sc, 0)
	if _, err := asked(context.Background(), s, "do two things"); err != nil {
		t.Fatal(err)
	}
	parent := of(sc, srv.Requests(), "")
	last := body(parent[len(parent)-1])
	for _, want := range []string{"one done while the other ran", "two done while the other ran"} {
		if !strings.Contains(last, want) {
			t.Errorf("parent's last request lacks %q:\n%s", want, last)
		}
	}
}

func TestAgentPlanModeRefusesWrites(t *testing.T) {
	for _, tc := range []struct {
		name, params string
		parent       windows.PermMode // the parent's mode ("" is default)
		written      bool
	}{
		{"plan by default", `{"app":"agent","target":"write out.txt"}`, "", false},
		{"default when asked", `{"app":"agent","target":"write out.txt","mode":"default"}`, "", true},
		{"never freer than a plan parent", `{"app":"agent","target":"write out.txt","mode":"default"}`, windows.ModePlan, false},
		{"a yes parent's child is default", `{"app":"agent","target":"write out.txt","mode":"default"}`, windows.ModeYes, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := script{
				"": steps(batch(act("launcher", "open", tc.params), act("agent_1", "wait", `{}`)), "ok"),
				"write out.txt": steps(
					batch(act("launcher", "open", `{"app":"file","target":"out.txt"}`), act("file_1", "write", `{"content":"hi\n"}`)),
					"finished"),
			}
			s, _, srv, work := agentSession(t, sc, 0)
			if tc.parent != "" {
				s.SetMode(tc.parent)
			}
			if _, err := asked(context.Background(), s, "go"); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(filepath.Join(work, "out.txt"))
			if (err == nil) != tc.written {
				t.Errorf("out.txt written: %v, want %v", err == nil, tc.written)
			}
			kid := of(sc, srv.Requests(), "write out.txt")
			refused := strings.Contains(body(kid[len(kid)-1]), `status="denied"`)
			if refused == tc.written {
				t.Errorf("child's write refused: %v\n%s", refused, body(kid[len(kid)-1]))
			}
			if !tc.written && !strings.Contains(body(kid[len(kid)-1]), "refused in plan mode") {
				t.Errorf("the child's refusal is not plan mode's:\n%s", body(kid[len(kid)-1]))
			}
		})
	}
}

func TestAgentBadMode(t *testing.T) {
	sc := script{"": steps(call("launcher", "open", `{"app":"agent","target":"x","mode":"yolo"}`), "ok")}
	s, _, srv, _ := agentSession(t, sc, 0)
	if _, err := asked(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if last := body(reqs[len(reqs)-1]); !strings.Contains(last, `unknown mode \"yolo\"`) && !strings.Contains(last, `unknown mode "yolo"`) {
		t.Errorf("a bad mode was not refused:\n%s", last)
	}
	if n := len(of(sc, reqs, "?")); n != 0 {
		t.Errorf("a child ran: %d requests", n)
	}
}

func TestAgentCannotNest(t *testing.T) {
	sc := script{
		"":     steps(batch(act("launcher", "open", `{"app":"agent","target":"nest"}`), act("agent_1", "wait", `{}`)), "ok"),
		"nest": steps(call("launcher", "open", `{"app":"agent","target":"deeper"}`), "could not"),
	}
	s, _, srv, _ := agentSession(t, sc, 0)
	if _, err := asked(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	kid := of(sc, srv.Requests(), "nest")
	if len(kid) != 2 || !strings.Contains(body(kid[1]), `unknown app \"agent\"`) && !strings.Contains(body(kid[1]), `unknown app "agent"`) {
		t.Errorf("the child's open of an agent was not refused:\n%s", body(kid[len(kid)-1]))
	}
	if n := len(of(sc, srv.Requests(), "?")); n != 0 {
		t.Errorf("%d requests of a grandchild", n)
	}
}

func TestAgentFailureGivesLastWords(t *testing.T) {
	sc := script{
		"": steps(batch(act("launcher", "open", `{"app":"agent","target":"loop"}`), act("agent_1", "wait", `{}`)), "it failed"),
		"loop": func(step int, _ fakeai.Request) fakeai.Reply {
			return fakeai.Reply{Content: "still looking at step " + string(rune('0'+step)) + call("launcher", "open", `{"app":"bash"}`)}
		},
	}
	s, _, srv, _ := agentSession(t, sc, 3)
	if _, err := asked(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	parent := of(sc, srv.Requests(), "")
	last := body(parent[len(parent)-1])
	for _, want := range []string{`status="error"`, "agent_1 failed: step limit reached", "its last words: still looking at step 3"} {
		if !strings.Contains(last, want) {
			t.Errorf("parent's last request lacks %q:\n%s", want, last)
		}
	}
}

func TestCancelStopsAgents(t *testing.T) {
	hang := func(int, fakeai.Request) fakeai.Reply { return fakeai.Reply{Hang: true} }
	sc := script{
		"": steps(batch(act("launcher", "open", `{"app":"agent","target":"a"}`), act("launcher", "open", `{"app":"agent","target":"b"}`),
			act("agent_1", "wait", `{}`))),
		"a": hang,
		"b": hang,
	}
	s, live, srv, _ := agentSession(t, sc, 0)
	if _, err := s.Start("go"); err != nil {
		t.Fatal(err)
	}
	srv.WaitRequests(3, 10*time.Second)
	s.Cancel()
	res := collect(t, live, "result")
	if res[len(res)-1].Data["error"] != "interrupted" {
		t.Errorf("result %v", res[len(res)-1].Data)
	}
	n := len(srv.Requests())
	time.Sleep(300 * time.Millisecond)
	if m := len(srv.Requests()); m != n {
		t.Errorf("%d requests after the cancel", m-n)
	}
	for _, w := range s.wm.Windows() {
		if w.App() == "agent" && !strings.HasPrefix(w.View().Content, "failed") {
			t.Errorf("%s after the cancel: %q", w.ID(), w.View().Content)
		}
	}
}

func TestAgentQuestionMarkedAndUsageAdded(t *testing.T) {
	sc := script{
		"": func(step int, _ fakeai.Request) fakeai.Reply {
			if step == 1 {
				return fakeai.Reply{Content: batch(act("launcher", "open", `{"app":"agent","target":"push","mode":"default"}`), act("agent_1", "wait", `{}`)), PromptTokens: 10}
			}
			return fakeai.Reply{Content: "pushed", PromptTokens: 10}
		},
		"push": func(step int, _ fakeai.Request) fakeai.Reply {
			replies := []string{call("launcher", "open", `{"app":"bash"}`), call("bash_1", "run", `{"command":"git push --force origin main || true"}`), "done"}
			return fakeai.Reply{Content: replies[min(step, 3)-1], PromptTokens: 1000}
		},
	}
	s, live, _, _ := agentSession(t, sc, 0)
	if _, err := s.Start("push it"); err != nil {
		t.Fatal(err)
	}
	evs := collect(t, live, "approval")
	req := evs[len(evs)-1].Data
	if req["window_id"] != "agent_1" || !strings.Contains(req["reason"].(string), "asked by agent_1, in its bash_1") || req["subject"] != "git push --force origin main || true" {
		t.Errorf("approval %v", req)
	}
	if err := s.Decide(req["request_id"].(string), windows.Decision{Message: "not now"}); err != nil {
		t.Fatal(err)
	}
	evs = collect(t, live, "result")
	usage := evs[len(evs)-1].Data["usage"].(map[string]any)
	if got := usage["prompt_tokens"].(float64); got != 3020 {
		t.Errorf("the turn's prompt tokens: %v, want the parent's 20 and the child's 3000", got)
	}
}

func TestAgentTell(t *testing.T) {
	sc := script{
		"": steps(batch(act("launcher", "open", `{"app":"agent","target":"listen"}`), act("agent_1", "tell", `{"text":"also say banana"}`), act("agent_1", "wait", `{}`)), "ok"),
		"listen": func(step int, req fakeai.Request) fakeai.Reply {
			if step == 1 {
				return fakeai.Reply{Content: call("launcher", "open", `{"app":"bash"}`), Delay: 200 * time.Millisecond}
			}
			if strings.Contains(body(req), "also say banana") {
				return fakeai.Reply{Content: "banana"}
			}
			return fakeai.Reply{Content: "not told"}
		},
	}
	s, _, srv, _ := agentSession(t, sc, 0)
	if _, err := asked(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	parent := of(sc, srv.Requests(), "")
	last := body(parent[len(parent)-1])
	if !strings.Contains(last, "told agent_1") || !strings.Contains(last, "answer:\nbanana") {
		t.Errorf("the child did not hear the tell:\n%s", last)
	}
}

// TestAgentOverhead measures what a child costs the parent's context
// against doing the same work inline, and the size of a child's first
// request (go test ./session -run AgentOverhead -v).
func TestAgentOverhead(t *testing.T) {
	const task = "read notes.txt and say its word"
	work := func(t *testing.T, sc script) (*fakeai.Server, string) {
		s, _, srv, work := agentSession(t, sc, 0)
		lines := strings.Repeat("filler line of a long file to read\n", 200)
		os.WriteFile(filepath.Join(work, "notes.txt"), []byte("kiwi\n"+lines), 0o644)
		if _, err := asked(context.Background(), s, "what word is in notes.txt?"); err != nil {
			t.Fatal(err)
		}
		return srv, work
	}
	inlineSC := script{"": steps(call("launcher", "open", `{"app":"file","target":"notes.txt"}`), "The word is kiwi.")}
	srv, _ := work(t, inlineSC)
	inline := srv.Requests()
	childSC := script{
		"":   steps(batch(act("launcher", "open", `{"app":"agent","target":"`+task+`"}`), act("agent_1", "wait", `{}`)), "The word is kiwi."),
		task: steps(call("launcher", "open", `{"app":"file","target":"notes.txt"}`), "The word is kiwi."),
	}
	srv, _ = work(t, childSC)
	parent := of(childSC, srv.Requests(), "")
	kid := of(childSC, srv.Requests(), task)
	size := func(r fakeai.Request) int { return len(body(r)) }
	inlineAdded := size(inline[len(inline)-1]) - size(inline[0])
	childAdded := size(parent[len(parent)-1]) - size(parent[0])
	t.Logf("parent's context grows by %d bytes with a child, %d bytes doing the work inline", childAdded, inlineAdded)
	t.Logf("a child's first request: %d bytes of messages, %d bytes of JSON body (the parent's first: %d, %d)",
		size(kid[0]), len(kid[0].Body), size(parent[0]), len(parent[0].Body))
	t.Logf("the child's requests: %d, %d bytes in all", len(kid), size(kid[0])+size(kid[1]))
	if childAdded >= inlineAdded {
		t.Errorf("a child cost the parent %d bytes, inline %d", childAdded, inlineAdded)
	}
}

func TestAgentWaitTimesOutAndCloseStops(t *testing.T) {
	sc := script{
		"":     steps(batch(act("launcher", "open", `{"app":"agent","target":"slow"}`), act("agent_1", "wait", `{"timeout_s":1}`), act("agent_1", "close", `{}`)), "gave up"),
		"slow": func(int, fakeai.Request) fakeai.Reply { return fakeai.Reply{Hang: true} },
	}
	s, _, srv, _ := agentSession(t, sc, 0)
	if _, err := asked(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	parent := of(sc, srv.Requests(), "")
	last := body(parent[len(parent)-1])
	for _, want := range []string{"agent_1 is still running after 1s", "closed agent_1"} {
		if !strings.Contains(last, want) {
			t.Errorf("parent's last request lacks %q:\n%s", want, last)
		}
	}
	n := len(srv.Requests())
	time.Sleep(200 * time.Millisecond)
	if m := len(srv.Requests()); m != n {
		t.Errorf("%d requests after the close", m-n)
	}
	for _, w := range s.wm.Windows() {
		if w.App() == "agent" {
			t.Errorf("%s still open", w.ID())
		}
	}
}
