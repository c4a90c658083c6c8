package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/windows"
)

func TestProbeTarget(t *testing.T) {
	for url, want := range map[string]probeKind{
		"http://127.0.0.1:11434/v1":    probeLocal,
		"http://localhost:8080/v1":     probeLocal,
		"http://[::1]:8000/v1":         probeLocal,
		"http://192.168.1.20:11434/v1": probeLocal,
		"http://10.0.0.5/v1":           probeLocal,
		"http://[fd00::5]:1234/v1":     probeLocal,
		"https://openrouter.ai/api/v1": probeOpenRouter,
		"https://api.openai.com/v1":    probeNone,
		"https://api.deepseek.com":     probeNone,
		"https://8.8.8.8/v1":           probeNone,
		"http://gpu-box:11434/v1":      probeResolve,
		"https://llm.example.com/v1":   probeResolve,
		"::not a url":                  probeNone,
		"":                             probeNone,
	} {
		if got := probeTarget(url); got != want {
			t.Errorf("probeTarget(%q) = %d, want %d", url, got, want)
		}
	}
}

// The window is not asked before the first request: a server slow to tell
// its window does not delay the first answer, and the window applies once
// the server told it.
func TestWindowNotBeforeTheFirstAnswer(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "4"}, fakeai.Reply{Content: "again"})
	srv.SetInfo(fakeai.Info{Models: []string{"m"}, LlamaCppNCtx: 8192})
	release := make(chan struct{})
	target, _ := url.Parse(strings.TrimSuffix(srv.URL, "/v1"))
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			select { // the info endpoints answer once the test says so
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	dir := t.TempDir()
	wm := windows.NewManager(windows.Env{Workdir: dir}, windows.FileApp)
	t.Cleanup(wm.CloseAll)
	client := NewOpenAIClient(ClientConfig{BaseURL: front.URL + "/v1", APIKey: "sk-test", Model: "m"})
	a := New(client, wm, Config{BasePrompt: "You are aci.", Hints: prompt.Hints{Workdir: dir}, MaxSteps: 10}, func(Event) {})
	mustAnswer(t, a, "What is 2+2?", "4")
	if w := a.ContextWindow(); w.Tokens != 0 {
		t.Errorf("window %+v before the server told it", w)
	}
	close(release)
	if w := client.ContextWindow(context.Background(), true); w.Tokens != 8192 || w.Server != "llama.cpp" {
		t.Fatalf("probed window %+v", w)
	}
	if _, err := a.Run(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	if w := a.ContextWindow(); w.Tokens != 8192 {
		t.Errorf("window %+v after the server told it", w)
	}
}

// A remote provider without a window endpoint is never asked.
func TestNoProbeOfAPublicAPI(t *testing.T) {
	c := NewOpenAIClient(ClientConfig{BaseURL: "https://api.openai.com/v1", Model: "gpt-5"})
	if w := c.ContextWindow(context.Background(), true); w != (Window{Model: "gpt-5"}) {
		t.Errorf("window %+v", w)
	}
	c.window.mu.Lock()
	defer c.window.mu.Unlock()
	if len(c.window.pending) != 0 {
		t.Error("a probe was started")
	}
}

// OpenRouter's model list gives each model's context_length.
func TestOpenRouterWindow(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"data":[{"id":"other/x","context_length":8192},{"id":"qwen/qwen3-coder","context_length":262144}]}`))
	}))
	defer srv.Close()
	w := probeOpenRouterWindow(context.Background(), srv.URL+"/api/v1", "", "qwen/qwen3-coder")
	if w.Tokens != 262144 || w.Server != "OpenRouter" {
		t.Errorf("window %+v", w)
	}
	if w := probeOpenRouterWindow(context.Background(), srv.URL+"/api/v1", "", "missing/model"); w.Tokens != 0 {
		t.Errorf("unknown model: %+v", w)
	}
}

// A one-question run never asks the server for its window; a second
// request waits for the answer and knows it.
func TestOneQuestionAsksNoWindow(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "4"}, fakeai.Reply{Content: "8"})
	srv.SetInfo(fakeai.Info{Models: []string{"m"}, LlamaCppNCtx: 8192})
	dir := t.TempDir()
	wm := windows.NewManager(windows.Env{Workdir: dir}, windows.FileApp)
	t.Cleanup(wm.CloseAll)
	client := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, APIKey: "sk-test", Model: "m"})
	a := New(client, wm, Config{BasePrompt: "You are aci.", Hints: prompt.Hints{Workdir: dir}, MaxSteps: 10}, func(Event) {})
	mustAnswer(t, a, "What is 2+2?", "4")
	if n := srv.InfoRequests(); n != 0 || a.ContextWindow().Tokens != 0 {
		t.Fatalf("%d info requests, window %+v after one question: want none asked", n, a.ContextWindow())
	}
	if _, err := a.Run(context.Background(), "And 4+4?"); err != nil {
		t.Fatal(err)
	}
	if w := a.ContextWindow(); w.Tokens != 8192 {
		t.Errorf("window %+v at the second request, want 8192 (llama.cpp)", w)
	}
}
