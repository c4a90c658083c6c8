package agent

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

func TestParseEffort(t *testing.T) {
	for in, want := range map[string]string{"": "", "low": "low", " High ": "high", "medium": "medium"} {
		if got, err := ParseEffort(in); err != nil || got != want {
			t.Errorf("ParseEffort(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseEffort("extreme"); err == nil || !strings.Contains(err.Error(), "low, medium, high") {
		t.Errorf("ParseEffort(extreme) = %v, want an error naming the levels", err)
	}
}

func TestTakesEffort(t *testing.T) {
	cases := []struct {
		base, model string
		want        bool
	}{
		{"https://api.openai.com/v1", "gpt-5-mini", true},
		{"https://api.openai.com/v1", "o4-mini", true},
		{"https://api.openai.com/v1", "o3", true},
		{"https://api.openai.com/v1", "gpt-4.1", false},
		{"https://api.openai.com/v1", "gpt-5-chat-latest", false},
		{"https://api.openai.com/v1", "gpt-4o", false},
		{"http://127.0.0.1:11434/v1", "qwen3:8b", false},
		{"https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4.5", true},
		{"https://openrouter.ai/api/v1", "openai/gpt-5", true},
		{"https://gateway.example/v1", "openai/gpt-5", true},
	}
	for _, c := range cases {
		cl := NewOpenAIClient(ClientConfig{BaseURL: c.base, Model: c.model})
		if got := cl.TakesEffort(c.model); got != c.want {
			t.Errorf("TakesEffort(%s, %s) = %v, want %v", c.base, c.model, got, c.want)
		}
	}
}

// TestEffortInRequest: the effort set goes as reasoning_effort to a model
// that takes it, not to one that does not; a server that refuses it gets
// the request again without it, once said, and later requests go without.
func TestEffortInRequest(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "a"}, fakeai.Reply{Content: "b"},
		fakeai.Reply{Status: http.StatusBadRequest, ErrorMessage: "Unsupported parameter: 'reasoning_effort' is not supported with this model.", ErrorCode: "unsupported_parameter"},
		fakeai.Reply{Content: "c"}, fakeai.Reply{Content: "d"})
	var mu sync.Mutex
	var notes []string
	c := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, APIKey: "k", Model: "gpt-5-mini", Stream: true, Notify: func(s string) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, s)
	}})
	c.SetEffort("high")
	ask := func() {
		t.Helper()
		if _, err := c.Complete(context.Background(), []Message{{Role: "system", Content: "s"}, {Role: "user", Content: "q"}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ask()
	c.SetModel("gpt-4.1")
	ask()
	if n := c.EffortNote("gpt-4.1"); !strings.Contains(n, "not sent to gpt-4.1") {
		t.Errorf("EffortNote = %q", n)
	}
	if n := c.EffortNote("gpt-4.1"); n != "" {
		t.Errorf("EffortNote said twice: %q", n)
	}
	c.SetModel("o3") // refuses it here: sent once, then not again
	ask()
	ask()
	reqs := srv.Requests()
	want := []any{"high", nil, "high", nil, nil}
	for i, r := range reqs {
		if got := r.Raw["reasoning_effort"]; got != want[i] {
			t.Errorf("request %d (%s): reasoning_effort %v, want %v", i+1, r.Model, got, want[i])
		}
	}
	if len(reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(reqs), len(want))
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "o3 does not take a reasoning effort") {
		t.Errorf("notes = %q", notes)
	}
}
