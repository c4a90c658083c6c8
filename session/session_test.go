package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/transcript"
	"github.com/aci-dev/aci/windows"
)

func call(window, action, params string) string {
	return `<tool_call>{"calls":[{"window_id":"` + window + `","action_id":"` + action + `","params":` + params + `}]}</tool_call>`
}

func newFactory(t *testing.T, srv *fakeai.Server) (*Factory, string) {
	t.Helper()
	work := t.TempDir()
	f := NewFactory(Config{
		Client:          agent.ClientConfig{BaseURL: srv.URL, APIKey: "sk-test-secret-key-123456", Model: "m", Stream: true},
		Agent:           agent.Config{BasePrompt: "You are aci."},
		SessionsDir:     t.TempDir(),
		ApprovalTimeout: 5 * time.Second,
		DiagnosticsWait: 20 * time.Second, // gopls's first diagnostics, on a loaded machine
	})
	return f, work
}

// watched is a new session on srv in a fresh workspace, and its events
// from the first; both end with the test.
func watched(t *testing.T, srv *fakeai.Server) (*Session, <-chan Numbered) {
	t.Helper()
	f, work := newFactory(t, srv)
	return watchedIn(t, f, work)
}

// watchedIn is watched for a session of f in work.
func watchedIn(t *testing.T, f *Factory, work string) (*Session, <-chan Numbered) {
	t.Helper()
	s := opened(t, f, work)
	_, live, stop := s.Subscribe(0)
	t.Cleanup(stop)
	return s, live
}

// opened is a new session of f in work, closed with the test.
func opened(t *testing.T, f *Factory, work string) *Session {
	t.Helper()
	return askedIn(t, f, Options{Workdir: work})
}

// askedIn is a new session of f with opt, closed with the test, that has
// asked qs, each answered.
func askedIn(t *testing.T, f *Factory, opt Options, qs ...string) *Session {
	t.Helper()
	s, err := f.New(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, q := range qs {
		if _, err := asked(context.Background(), s, q); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// wev is an event as its wire encoding reads.
type wev struct {
	ID   int64
	Type string
	Data map[string]any
}

func wire(t *testing.T, ev Numbered) wev {
	t.Helper()
	b, err := json.Marshal(ev.Event)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m["type"] != ev.Type() {
		t.Fatalf("event %s encodes as %s (%v)", ev.Type(), b, err)
	}
	return wev{ev.ID, ev.Type(), m}
}

// collect reads events until one of type until arrives.
func collect(t *testing.T, live <-chan Numbered, until string) []wev {
	t.Helper()
	var got []wev
	deadline := time.After(20 * time.Second)
	for {
		select {
		case nev, ok := <-live:
			if !ok {
				t.Fatalf("events closed; got %v", types(got))
			}
			ev := wire(t, nev)
			got = append(got, ev)
			if ev.Type == until {
				return got
			}
		case <-deadline:
			t.Fatalf("no %s event; got %v", until, types(got))
		}
	}
}

func types(evs []wev) []string {
	var out []string
	for _, ev := range evs {
		s := ev.Type
		if st, ok := ev.Data["state"].(string); ok && ev.Type == "state" {
			s += ":" + st
		}
		out = append(out, s)
	}
	return out
}

func TestTurnEvents(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Opening a shell." + call("launcher", "open", `{"app":"bash"}`)},
		fakeai.Reply{Content: call("bash_1", "run", `{"command":"echo hello-from-bash"}`)},
		fakeai.Reply{Content: "It said **hello**."},
	)
	s, live := watched(t, srv)
	n, err := s.Start("say hello")
	if err != nil || n != 1 {
		t.Fatalf("Start: %d, %v", n, err)
	}
	if _, err := s.Start("again"); !errors.Is(err, ErrBusy) {
		t.Errorf("second Start while running: %v, want ErrBusy", err)
	}
	evs := collect(t, live, "result")
	got := strings.Join(types(evs), " ")
	for _, want := range []string{"turn state:awaiting_model", "state:executing tool_call", "tool_result", "window", "result"} {
		if !strings.Contains(got, want) {
			t.Errorf("events %q lack %q", got, want)
		}
	}
	var output, text string
	for i, ev := range evs {
		if i > 0 && ev.ID <= evs[i-1].ID {
			t.Errorf("event ids do not rise: %d after %d", ev.ID, evs[i-1].ID)
		}
		if ev.Type == "tool_result" {
			if o, _ := ev.Data["output"].(string); o != "" {
				output = o
			}
		}
		if ev.Type == "text" {
			text += ev.Data["text"].(string)
		}
	}
	if !strings.Contains(output, "hello-from-bash") {
		t.Errorf("no command output in tool_result events: %q", output)
	}
	if !strings.Contains(text, "It said **hello**.") || strings.Contains(text, "<tool_call>") {
		t.Errorf("streamed text %q", text)
	}
	last := evs[len(evs)-1]
	if last.Data["result"] != "It said **hello**." || last.Data["is_error"] != false {
		t.Errorf("result %v", last.Data)
	}
	s.Wait()
	if st := s.State(); st != StateIdle {
		t.Errorf("state after the turn: %s", st)
	}
	info := s.Info()
	if len(info.Turns) != 1 || info.Turns[0].Answer != "It said **hello**." || len(info.Windows) != 2 {
		t.Errorf("info %+v", info)
	}
	if w, ok := s.Window("bash_1"); !ok || !strings.Contains(w.Content, "hello-from-bash") {
		t.Errorf("window bash_1: %+v %v", w, ok)
	}
}

func TestApprovalOverEvents(t *testing.T) {
	for _, tc := range []struct {
		name     string
		decision windows.Decision
		status   string
	}{
		{"allow", windows.Decision{Allow: true}, "ok"},
		{"deny", windows.Decision{Message: "not now"}, "denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeai.New(t,
				fakeai.Reply{Content: call("launcher", "open", `{"app":"bash"}`)},
				fakeai.Reply{Content: call("bash_1", "run", `{"command":"git push --force origin main || true"}`)},
				fakeai.Reply{Content: "Done."},
			)
			s, live := watched(t, srv)
			if _, err := s.Start("push it"); err != nil {
				t.Fatal(err)
			}
			evs := collect(t, live, "approval")
			req := evs[len(evs)-1].Data
			if req["window_id"] != "bash_1" || req["action_id"] != "run" || req["reason"] == "" {
				t.Errorf("approval %v", req)
			}
			if s.State() != StateAwaitingApproval {
				t.Errorf("state %s while asking", s.State())
			}
			if err := s.Decide("req_404", tc.decision); !errors.Is(err, ErrNoRequest) {
				t.Errorf("Decide of an unknown request: %v", err)
			}
			if err := s.Decide(req["request_id"].(string), tc.decision); err != nil {
				t.Fatal(err)
			}
			evs = collect(t, live, "tool_result")
			if st := evs[len(evs)-1].Data["status"]; st != tc.status {
				t.Errorf("status %v, want %s", st, tc.status)
			}
			evs = collect(t, live, "result")
			denials := evs[len(evs)-1].Data["denials"].([]any)
			if (tc.status == "denied") != (len(denials) == 1) {
				t.Errorf("denials %v for a %s action", denials, tc.status)
			}
		})
	}
}

func TestCancelEndsWaitingQuestion(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: call("launcher", "open", `{"app":"bash"}`)},
		fakeai.Reply{Content: call("bash_1", "run", `{"command":"git push --force origin main"}`)},
	)
	s, live := watched(t, srv)
	s.Start("push it")
	collect(t, live, "approval")
	s.Cancel()
	evs := collect(t, live, "result")
	if last := evs[len(evs)-1].Data; last["is_error"] != true || last["error"] != "interrupted" {
		t.Errorf("result after cancel: %v", last)
	}
	if len(s.Pending()) != 0 {
		t.Errorf("questions still waiting: %v", s.Pending())
	}
}

func TestForkHoldsFirstTurnsOnly(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: "First answer."},
		fakeai.Reply{Content: "Second answer."},
		fakeai.Reply{Content: "Branch answer."},
	)
	f, work := newFactory(t, srv)
	ctx := context.Background()
	s, err := f.New(ctx, Options{Workdir: work})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{"question one", "question two"} {
		if _, err := asked(ctx, s, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Fork(ctx, s.ID(), 3, Options{Workdir: work}); !errors.Is(err, ErrUsage) {
		t.Errorf("fork past the turns: %v", err)
	}
	b, err := f.Fork(ctx, s.ID(), 1, Options{Workdir: work})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	info := b.Info()
	if info.Parent != s.ID() || info.FromTurn != 1 || len(info.Turns) != 1 || info.Turns[0].Question != "question one" {
		t.Errorf("branch info %+v", info)
	}
	if _, err := asked(ctx, b, "question three"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, "question one") || !strings.Contains(body, "First answer.") || strings.Contains(body, "question two") {
		t.Errorf("the branch's request holds %s", body)
	}
	// Both are stored, the branch naming its parent.
	list, err := agent.ListSessions(f.Config().SessionsDir, work)
	if err != nil || len(list) != 2 {
		t.Fatalf("stored sessions: %d, %v", len(list), err)
	}
	// One writer per transcript: the branch is reopened once it is closed.
	if _, err := f.Open(ctx, b.ID()[:20], Options{Workdir: work}); !errors.Is(err, transcript.ErrLocked) {
		t.Errorf("opening a branch still open: %v, want ErrLocked", err)
	}
	b.Close()
	reopened, err := f.Open(ctx, b.ID()[:20], Options{Workdir: work})
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	if ri := reopened.Info(); ri.Parent != s.ID() || len(ri.Turns) != 2 || ri.Turns[1].Answer != "Branch answer." {
		t.Errorf("resumed branch %+v", ri)
	}
	if _, err := os.Stat(filepath.Join(f.Config().SessionsDir, s.ID()+".jsonl")); err != nil {
		t.Error(err)
	}
}

func TestSlowSubscriberIsDropped(t *testing.T) {
	srv := fakeai.New(t)
	s, live := watched(t, srv)
	for i := 0; i < 3*keptEvents; i++ {
		s.publish(Notice{Kind: "info", Text: "x"})
	}
	n := 0
	for range live {
		n++
	}
	if n != subscriberBuffer {
		t.Errorf("a subscriber that never read got %d events, want its buffer (%d) then closed", n, subscriberBuffer)
	}
	replay, _, stop2 := s.Subscribe(int64(3*keptEvents - 10))
	stop2()
	if len(replay) != 10 || replay[0].ID != int64(3*keptEvents-9) {
		t.Errorf("replay after an id: %d events from %d", len(replay), replay[0].ID)
	}
	all, _, stop3 := s.Subscribe(0)
	stop3()
	if len(all) != keptEvents {
		t.Errorf("kept %d events, want %d", len(all), keptEvents)
	}
}

// asked is Ask as these tests read a turn: its answer, or an error when
// it did not answer.
func asked(ctx context.Context, s *Session, q string) (string, error) {
	r, err := s.Ask(ctx, q)
	if err == nil && r.Outcome != Answered {
		err = r.Err
		if err == nil {
			err = errors.New(r.Error)
		}
	}
	return r.Answer, err
}
