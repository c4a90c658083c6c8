package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/windows"
)

func newAgent(t *testing.T, srv *fakeai.Server, stream bool) (*Agent, string, *[]Event) {
	t.Helper()
	dir := t.TempDir()
	a, events := newAgentIn(t, srv, stream, dir)
	return a, dir, events
}

// newAgentIn makes an agent working in dir, its windows denying every
// dangerous action.
func newAgentIn(t *testing.T, srv *fakeai.Server, stream bool, dir string) (*Agent, *[]Event) {
	t.Helper()
	wm := windows.NewManager(windows.Env{Workdir: dir, Approver: windows.ApproverFunc(func(context.Context, windows.ApprovalRequest) windows.Decision {
		return windows.Decision{}
	})}, windows.FileApp, windows.BashApp)
	t.Cleanup(wm.CloseAll)
	client := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, APIKey: "sk-test", Model: "m", Stream: stream})
	var events []Event
	a := New(client, wm, Config{BasePrompt: "You are aci.", Hints: prompt.Hints{Workdir: dir, OS: "linux", Date: "2026-01-01"}, MaxSteps: 10}, func(e Event) {
		events = append(events, e)
	})
	return a, &events
}

func TestRunStreamingAndNot(t *testing.T) {
	for _, stream := range []bool{true, false} {
		srv := fakeai.New(t, fakeai.Reply{Content: "a fairly long answer that streams in chunks", PromptTokens: 1234, CompletionTokens: 9, CachedTokens: 1000})
		a, _, events := newAgent(t, srv, stream)
		got, err := a.Run(context.Background(), "hi")
		if err != nil || got != "a fairly long answer that streams in chunks" {
			t.Fatalf("stream=%v: %q, %v", stream, got, err)
		}
		st := a.Stats()
		if st.PromptTokens != 1234 || st.CompletionTokens != 9 || st.CachedTokens != 1000 || st.Steps != 1 {
			t.Errorf("stream=%v stats %+v", stream, st)
		}
		var deltas int
		for _, e := range *events {
			if e.Kind == EventText {
				deltas++
			}
		}
		if stream && deltas < 3 {
			t.Errorf("streaming gave %d text events", deltas)
		}
	}
}

func TestPrefixStableAcrossSteps(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}})},
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "echo hi"}})},
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": "x.txt"}})},
		fakeai.Reply{Content: "done"},
	)
	a, _, _ := newAgent(t, srv, true)
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	// Each request repeats the previous one's messages byte for byte: the
	// window renderings stay in the history.
	reqs := srv.Requests()
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1].Messages, reqs[i].Messages
		if len(cur) <= len(prev) {
			t.Fatalf("request %d has %d messages, request %d had %d", i+1, len(cur), i, len(prev))
		}
		for j := range prev {
			if prev[j] != cur[j] {
				t.Errorf("request %d changes message %d of request %d", i+1, j, i)
			}
		}
	}
}

func TestInterruptKeepsHistoryWellFormed(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Hang: true}, fakeai.Reply{Content: "second answer"})
	a, _, _ := newAgent(t, srv, true)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		srv.WaitRequests(1, 10*time.Second)
		cancel()
	}()
	if _, err := a.Run(ctx, "first"); err == nil {
		t.Fatal("no error after cancel")
	}
	h := a.History()
	if len(h) != 2 || h[1].Role != "assistant" || !strings.Contains(h[1].Content, "interrupted") {
		t.Fatalf("history %+v", h)
	}
	mustAnswer(t, a, "again", "second answer")
}

func TestInterruptKillsRunningCommand(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}},
			fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "sleep 30; touch never"}},
			fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "touch never2"}},
		)},
	)
	a, dir, _ := newAgent(t, srv, true)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	if _, err := a.Run(ctx, "go"); err == nil {
		t.Fatal("no error after cancel")
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("cancel took %s", el)
	}
	for _, f := range []string{"never", "never2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s exists: the batch went on after the interrupt", f)
		}
	}
	h := a.History()
	if last := h[len(h)-1]; !strings.Contains(last.Content, "interrupted") {
		t.Errorf("last message %+v", last)
	}
	if res := h[len(h)-2].Content; !strings.Contains(res, "not run: the turn was interrupted") {
		t.Errorf("results:\n%s", res)
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		reply fakeai.Reply
		want  string
	}{
		{fakeai.Reply{Status: 401}, "the API key was refused"},
		{fakeai.Reply{Status: 404, ErrorCode: "model_not_found"}, "model m not found at"},
		{fakeai.Reply{Status: 400, ErrorMessage: "kaput"}, "API error 400: kaput"},
	}
	for _, tt := range tests {
		srv := fakeai.New(t, tt.reply)
		a, _, _ := newAgent(t, srv, true)
		_, err := a.Run(context.Background(), "hi")
		if got := Describe(err, srv.URL, "m"); !strings.Contains(got, tt.want) || strings.Contains(got, "sk-test") {
			t.Errorf("Describe = %q, want %q", got, tt.want)
		}
	}
}

// mustAnswer asks a q and fails the test unless a answers want.
func mustAnswer(t *testing.T, a *Agent, q, want string) {
	t.Helper()
	if got, err := a.Run(context.Background(), q); err != nil || got != want {
		t.Fatalf("%q: answer %q, %v; want %q", q, got, err, want)
	}
}
