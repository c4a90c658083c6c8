package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

// The open and local model paths, end to end against the fake server.

func TestDialectsRunEndToEnd(t *testing.T) {
	bothModes(t, func(t *testing.T, stream bool) {
		srv := fakeai.New(t,
			fakeai.Reply{Content: "Opening a shell.\n<tool_call>\n{\"name\": \"launcher.open\", \"arguments\": {\"app\": \"bash\"}}\n</tool_call>"},
			fakeai.Reply{Content: "<tool_call>\n<function=bash_1.run>\n<parameter=command>\necho from-function\n</parameter>\n</function>\n</tool_call>"},
			fakeai.Reply{Content: "```json\n{\"name\": \"run\", \"arguments\": \"{\\\"window_id\\\": \\\"bash_1\\\", \\\"command\\\": \\\"echo from-bare\\\"}\"}\n```"},
			fakeai.Reply{Content: "All done."},
		)
		a, _, _ := newAgent(t, srv, stream)
		mustAnswer(t, a, "go", "All done.")
		reqs := srv.Requests()
		for i, want := range []string{
			`<result call_id="call_1_1" window_id="launcher" action_id="open" status="ok">opened bash_1`,
			`<result call_id="call_2_1" window_id="bash_1" action_id="run" status="ok">`,
			`<result call_id="call_3_1" window_id="bash_1" action_id="run" status="ok">`,
		} {
			if res := resultsOf(reqs[i+1]); !strings.Contains(res, want) {
				t.Errorf("request %d results:\n%s\nwant %s", i+2, res, want)
			}
		}
		if !strings.Contains(resultsOf(reqs[2]), "from-function") || !strings.Contains(resultsOf(reqs[3]), "from-bare") {
			t.Errorf("outputs missing:\n%s\n%s", resultsOf(reqs[2]), resultsOf(reqs[3]))
		}
	})
}

// resultsOf returns the <tool_results> message of a request.
func resultsOf(r fakeai.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if strings.HasPrefix(r.Messages[i].Content, "<tool_results>") {
			return r.Messages[i].Content
		}
	}
	return ""
}

func TestThinkBlocksAreShownApartAndNotStored(t *testing.T) {
	bothModes(t, func(t *testing.T, stream bool) {
		srv := fakeai.New(t,
			fakeai.Reply{Content: "<think>\nThe file may hold a <tool_call> example.\n</think>\n\nOpening it.\n" + openFile("a.txt")},
			fakeai.Reply{Content: "Checked it.\n</think>\nIt is empty."}, // the template opened the block
		)
		a, _, events := newAgent(t, srv, stream)
		mustAnswer(t, a, "look", "It is empty.")
		h := a.History()
		if len(h) != 4 || h[1].Content != "Opening it.\n"+openFile("a.txt") || h[3].Content != "It is empty." {
			t.Fatalf("history %+v", h)
		}
		var reasoning, text strings.Builder
		for _, e := range *events {
			switch e.Kind {
			case EventReasoning:
				reasoning.WriteString(e.Text)
			case EventText:
				text.WriteString(e.Text)
			}
		}
		if !strings.Contains(reasoning.String(), "may hold a <tool_call> example") || strings.Contains(text.String(), "<think>") || strings.Contains(text.String(), "</think>") {
			t.Errorf("reasoning %q\ntext %q", reasoning.String(), text.String())
		}
		if strings.Contains(string(srv.Requests()[1].Body), "may hold") {
			t.Error("reasoning was sent back to the model")
		}
	})
}

func TestReasoningContentOnlyIsNotAnAnswer(t *testing.T) {
	bothModes(t, func(t *testing.T, stream bool) {
		srv := fakeai.New(t,
			fakeai.Reply{Reasoning: "pondering the question at length"},
			fakeai.Reply{Reasoning: "now I know", Content: "forty-two"},
		)
		a, _, events := newAgent(t, srv, stream)
		mustAnswer(t, a, "q", "forty-two")
		second := srv.Requests()[1]
		if !strings.Contains(string(second.Body), "reasoning but no answer") || strings.Contains(string(second.Body), "pondering") {
			t.Errorf("second request: %.600s", second.Body)
		}
		var reasoning strings.Builder
		notices := 0
		for _, e := range *events {
			switch e.Kind {
			case EventReasoning:
				reasoning.WriteString(e.Text)
			case EventNotice:
				notices++
			}
		}
		if reasoning.String() != "pondering the question at lengthnow I know" || notices != 1 {
			t.Errorf("reasoning %q, %d notices", reasoning.String(), notices)
		}
		for _, m := range a.History() {
			if strings.Contains(m.Content, "pondering") || strings.Contains(m.Content, "now I know") {
				t.Errorf("reasoning stored: %q", m.Content)
			}
		}
	})
}

func TestPromiseWithoutCallGetsAHint(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: "The tests may fail. I'll run the tests now."},
		fakeai.Reply{Content: "They pass."},
	)
	a, _, _ := newAgent(t, srv, true)
	mustAnswer(t, a, "check", "They pass.")
	hinted := false
	for _, m := range srv.Requests()[1].Messages {
		hinted = hinted || (m.Role == "user" && strings.Contains(m.Content, `You wrote "I'll run the tests now." but no <tool_call>`))
	}
	if !hinted {
		t.Errorf("no hint in %+v", srv.Requests()[1].Messages)
	}
}

func TestRepeatedCallGetsAHint(t *testing.T) {
	run := fakeai.ToolCall(fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "echo same"}})
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}})},
		fakeai.Reply{Content: run}, fakeai.Reply{Content: run}, fakeai.Reply{Content: run},
		fakeai.Reply{Content: "giving up"},
	)
	a, _, _ := newAgent(t, srv, true)
	if _, err := a.Run(context.Background(), "loop"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if strings.Contains(resultsOf(reqs[3]), "system_hint") || !strings.Contains(resultsOf(reqs[4]), "third time in a row you made the same call (bash_1.run)") {
		t.Errorf("results 3:\n%s\nresults 4:\n%s", resultsOf(reqs[3]), resultsOf(reqs[4]))
	}
}

func TestFailingBatchesEndTheTurn(t *testing.T) {
	srv := fakeai.New(t)
	n := 0
	srv.Handle(func(fakeai.Request) fakeai.Reply {
		n++ // another call each time: not a loop, yet every one fails
		return fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: fmt.Sprintf("file_%d", 9+n), Action: "view"})}
	})
	a, _, _ := newAgent(t, srv, false)
	_, err := a.Run(context.Background(), "go")
	if !errors.Is(err, ErrFailingCalls) || len(srv.Requests()) != maxFailedBatches {
		t.Fatalf("%v after %d requests", err, len(srv.Requests()))
	}
}

func TestSameFailingCallIsALoop(t *testing.T) {
	srv2 := fakeai.New(t)
	srv2.Handle(func(fakeai.Request) fakeai.Reply {
		return fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "file_9", Action: "view", Params: map[string]any{"line": 1}})}
	})
	a, _, _ := newAgent(t, srv2, false)
	_, err := a.Run(context.Background(), "go")
	if LimitOf(err) != LimitLoop || !errors.Is(err, ErrLimit) || len(srv2.Requests()) != loopStop ||
		!strings.Contains(err.Error(), "the same failing call (file_9.view) 4 times in a row") {
		t.Fatalf("%v after %d requests", err, len(srv2.Requests()))
	}
	if hint := resultsOf(srv2.Requests()[loopStop-1]); !strings.Contains(hint, "third time in a row") {
		t.Errorf("no hint before the stop:\n%s", hint)
	}
}

func TestContextWindowSmallerThanThePrompt(t *testing.T) {
	for _, tc := range []struct {
		name string
		info fakeai.Info
		fix  string
	}{
		{"ollama", fakeai.Info{Models: []string{"m"}, OllamaNumCtx: 2048, OllamaTrained: 131072}, "OLLAMA_CONTEXT_LENGTH=32768 ollama serve"},
		{"ollama trained limit", fakeai.Info{Models: []string{"m"}, OllamaNumCtx: 65536, OllamaTrained: 2048}, "OLLAMA_CONTEXT_LENGTH="},
		{"llama.cpp", fakeai.Info{Models: []string{"m"}, LlamaCppNCtx: 2048}, "restart llama-server with a larger one: -c 32768"},
		{"lm studio", fakeai.Info{Models: []string{"m"}, LMStudioContext: 2048}, "lms load m --context-length 32768"},
		{"vllm", fakeai.Info{Models: []string{"m"}, MaxModelLen: 2048}, "--max-model-len 32768"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeai.New(t)
			srv.SetInfo(tc.info)
			a, _, _ := newAgent(t, srv, true)
			_, err := a.Run(context.Background(), strings.Repeat("a long pasted log line\n", 800))
			if !errors.Is(err, ErrContextTooSmall) || !strings.Contains(err.Error(), tc.fix) || !strings.Contains(err.Error(), "(2048 tokens)") {
				t.Fatalf("err = %v", err)
			}
			// The line shown is the whole fix, not cut.
			if got := Describe(err, srv.URL, "m"); got != err.Error() {
				t.Errorf("Describe = %q\nwant %q", got, err.Error())
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d chat requests sent; a prompt that cannot fit must not be", n)
			}
			if w := a.ContextWindow(); w.Tokens != 2048 {
				t.Errorf("window %+v", w)
			}
		})
	}
}

func TestSmallWindowCompressesEarlier(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: "first answer", PromptTokens: 7000},
		fakeai.Reply{Content: "## Goal\nSUMMARY"},
		fakeai.Reply{Content: "second answer"},
	)
	srv.SetInfo(fakeai.Info{Models: []string{"m"}, LlamaCppNCtx: 8192})
	a, _, _ := newAgent(t, srv, true)
	a.conv.cfg.CompressTokens = 100000
	if _, err := a.Run(context.Background(), "one"); err != nil {
		t.Fatal(err)
	}
	// The window was asked alongside the first request.
	a.conv.client.(windowed).ContextWindow(context.Background(), true)
	mustAnswer(t, a, "two", "second answer")
	if got := a.conv.compressLimit(); got != 6144 {
		t.Errorf("compress limit %d, want 3/4 of 8192", got)
	}
	if !strings.Contains(srv.Requests()[2].Messages[0].Content, "SUMMARY") {
		t.Error("no compression at 75% of the window")
	}
	if n := srv.InfoRequests(); n > 5 {
		t.Errorf("%d info requests: the window is asked once per model", n)
	}
}

func TestFirstByteAfterALongDelay(t *testing.T) {
	bothModes(t, func(t *testing.T, stream bool) {
		srv := fakeai.New(t, fakeai.Reply{Content: "late but fine", Delay: 700 * time.Millisecond})
		var mu sync.Mutex
		var notes []string
		c := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, Model: "m", Stream: stream,
			IdleTimeout: 200 * time.Millisecond, FirstByteTimeout: 5 * time.Second, SlowNotice: 100 * time.Millisecond,
			Notify: func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }})
		r, err := c.Complete(context.Background(), testMsgs, nil)
		if err != nil || r.Content != "late but fine" {
			t.Fatalf("%q %v", r.Content, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(notes) != 1 || !strings.Contains(notes[0], "still processing the prompt") {
			t.Errorf("notes %q", notes)
		}
	})
}

func TestDefaultFirstByteTimeout(t *testing.T) {
	for u, want := range map[string]time.Duration{
		"http://127.0.0.1:11434/v1":    10 * time.Minute,
		"http://localhost:8080/v1":     10 * time.Minute,
		"http://[::1]:8000/v1":         10 * time.Minute,
		"https://api.openai.com/v1":    3 * time.Minute,
		"https://openrouter.ai/api/v1": 3 * time.Minute,
	} {
		if got := DefaultFirstByteTimeout(u); got != want {
			t.Errorf("%s: %v, want %v", u, got, want)
		}
	}
}

func TestDiscover(t *testing.T) {
	ollama := fakeai.New(t)
	ollama.SetInfo(fakeai.Info{Models: []string{"qwen2.5-coder:7b", "llama3.2"}})
	vllm := fakeai.New(t)
	vllm.SetInfo(fakeai.Info{Models: []string{"Qwen/Qwen3-8B"}, MaxModelLen: 32768})
	down := testutil.ClosedPort(t)
	servers := []LocalServer{
		{Name: "Ollama", Port: testutil.PortOf(t, ollama.URL)},
		{Name: "llama.cpp", Port: down},
		{Name: "vLLM", Port: testutil.PortOf(t, vllm.URL)},
	}
	d, err := Discover(context.Background(), "", servers, 0)
	if err != nil || d.Server.Name != "Ollama" || d.BaseURL != ollama.URL || len(d.Models) != 2 {
		t.Fatalf("%+v %v", d, err)
	}
	if m, err := d.PickModel(""); m != "qwen2.5-coder:7b" || err != nil {
		t.Errorf("PickModel = %q %v", m, err)
	}
	if m, _ := d.PickModel("llama3.2"); m != "llama3.2" {
		t.Errorf("PickModel(llama3.2) = %q", m)
	}
	// Without Ollama, the next one in order.
	d, err = Discover(context.Background(), "", servers[1:], 0)
	if err != nil || d.Server.Name != "vLLM" || d.Models[0].MaxModelLen != 32768 {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestDiscoverNoneFound(t *testing.T) {
	servers := []LocalServer{{Name: "Ollama", Port: testutil.ClosedPort(t), Start: "ollama serve"}, {Name: "vLLM", Port: testutil.ClosedPort(t)}}
	_, err := Discover(context.Background(), "", servers, 0)
	var none *NoServerError
	if !errors.As(err, &none) {
		t.Fatalf("err = %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"Ollama (127.0.0.1:", "vLLM (127.0.0.1:", "set OPENAI_API_KEY", "ollama serve", "OPENAI_BASE_URL"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}

func TestDiscoveredServerWithoutModels(t *testing.T) {
	srv := fakeai.New(t)
	srv.SetInfo(fakeai.Info{Models: []string{}})
	d, err := Discover(context.Background(), "", []LocalServer{{Name: "Ollama", Port: testutil.PortOf(t, srv.URL)}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.PickModel(""); err == nil || !strings.Contains(err.Error(), "ollama pull") {
		t.Errorf("err = %v", err)
	}
}

func TestSetModelAndModels(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "a"}, fakeai.Reply{Content: "b"})
	srv.SetInfo(fakeai.Info{Models: []string{"m", "other"}})
	c := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, Model: "m", Stream: true})
	ms, err := c.Models(context.Background())
	if err != nil || len(ms) != 2 || ms[1].ID != "other" {
		t.Fatalf("%+v %v", ms, err)
	}
	c.Complete(context.Background(), testMsgs, nil)
	c.SetModel("other")
	c.Complete(context.Background(), testMsgs, nil)
	if reqs := srv.Requests(); reqs[0].Model != "m" || reqs[1].Model != "other" || c.Model() != "other" {
		t.Errorf("models %s %s", reqs[0].Model, reqs[1].Model)
	}
}

// closedPorts is servers, each on a loopback port that was free a moment
// ago: nothing answers there.
func closedPorts(b *testing.B, servers []LocalServer) []LocalServer {
	var out []LocalServer
	for _, s := range servers {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, LocalServer{Name: s.Name, Port: l.Addr().(*net.TCPAddr).Port})
		l.Close()
	}
	return out
}

// BenchmarkDiscoverNoneFound is what start-up pays when no local server runs
// and no key is set: four refused connections, probed at once.
func BenchmarkDiscoverNoneFound(b *testing.B) {
	servers := closedPorts(b, LocalServers)
	for b.Loop() {
		if _, err := Discover(context.Background(), "", servers, 0); err == nil {
			b.Fatal("found a server on a closed port")
		}
	}
}

// BenchmarkDiscoverFound is start-up with Ollama running (the fake).
func BenchmarkDiscoverFound(b *testing.B) {
	srv := fakeai.New(b)
	srv.SetInfo(fakeai.Info{Models: []string{"qwen2.5-coder:7b"}})
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	servers := append([]LocalServer{{Name: "Ollama", Port: port}}, closedPorts(b, LocalServers[1:])...)
	for b.Loop() {
		if _, err := Discover(context.Background(), "", servers, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOllamaDefaultWindowIsAskedAgain: before Ollama has loaded the model,
// its window is a guess (the default), so it only makes aci compress
// earlier, and is asked again once the model runs.
func TestOllamaDefaultWindowIsAskedAgain(t *testing.T) {
	srv := fakeai.New(t)
	srv.SetInfo(fakeai.Info{Models: []string{"m"}, OllamaTrained: 131072})
	c := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, Model: "m"})
	w := c.ContextWindow(context.Background(), true)
	if w.Tokens != ollamaDefaultContext || !w.Assumed || w.Server != "Ollama" {
		t.Fatalf("window %+v", w)
	}
	srv.SetInfo(fakeai.Info{Models: []string{"m"}, OllamaTrained: 131072, OllamaNumCtx: 16384})
	if w := c.ContextWindow(context.Background(), true); w.Tokens != 16384 || w.Assumed {
		t.Fatalf("window after load %+v", w)
	}
	before := srv.InfoRequests()
	c.ContextWindow(context.Background(), true)
	if srv.InfoRequests() != before {
		t.Error("a reported window was asked for again")
	}
}

// TestFunctionDialectValuesKeepTheirType: a Qwen3-Coder parameter is raw
// text; "1" written to a file stays the text 1, and "1" for an integer
// parameter is the number 1.
func TestFunctionDialectValuesKeepTheirType(t *testing.T) {
	fn := func(name string, kv ...string) string {
		s := "<tool_call>\n<function=" + name + ">\n"
		for i := 0; i+1 < len(kv); i += 2 {
			s += "<parameter=" + kv[i] + ">\n" + kv[i+1] + "\n</parameter>\n"
		}
		return s + "</function>\n</tool_call>"
	}
	srv := fakeai.New(t,
		fakeai.Reply{Content: fn("launcher.open", "app", "file", "target", "n.txt")},
		fakeai.Reply{Content: fn("file_1.write", "content", "1")},
		fakeai.Reply{Content: fn("file_1.view", "start_line", "1", "end_line", "1")},
		fakeai.Reply{Content: "ok"},
	)
	a, dir, _ := newAgent(t, srv, true)
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	for i, req := range srv.Requests()[1:] {
		if res := resultsOf(req); !strings.Contains(res, `status="ok"`) || strings.Contains(res, `status="error"`) {
			t.Errorf("results %d:\n%s", i+1, res)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "n.txt")); err != nil || string(b) != "1" {
		t.Errorf("file %q %v", b, err)
	}
}

func TestWindowUse(t *testing.T) {
	for _, tc := range []struct {
		w    Window
		n    int64
		want string
	}{
		{Window{}, 500, ""},
		{Window{Tokens: 8192, Server: "llama.cpp"}, 3100, "3.1k of 8192 tokens on llama.cpp (37%)"},
		{Window{Tokens: 4096, Server: "Ollama", Assumed: true}, 800, "800 of 4096 tokens on Ollama (its default, until the model is loaded) (19%)"},
	} {
		if got := tc.w.Use(tc.n); got != tc.want {
			t.Errorf("%+v.Use(%d) = %q, want %q", tc.w, tc.n, got, tc.want)
		}
	}
}
