package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// readSystemPrompt loads the real SYSTEM_PROMPT.md, so size figures are true.
func readSystemPrompt(tb testing.TB) string {
	data, err := os.ReadFile(filepath.Join("..", "SYSTEM_PROMPT.md"))
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

// BenchmarkStep measures one step's local work with 20 open windows and 200
// history messages: parse a reply and render the next request.
func BenchmarkStep(b *testing.B) {
	dir := b.TempDir()
	wm := windows.NewManager(windows.Env{Workdir: dir}, windows.FileApp, windows.BashApp)
	defer wm.CloseAll()
	var src strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&src, "func f%d(a, b int) int { return a + b + %d }\n", i, i)
	}
	for i := 0; i < 20; i++ {
		name := fmt.Sprintf("f%d.go", i)
		os.WriteFile(filepath.Join(dir, name), []byte(src.String()), 0o644)
		wm.Open(context.Background(), "file", name)
	}
	a := New(nil, wm, Config{BasePrompt: readSystemPrompt(b), Hints: prompt.Hints{Workdir: dir, OS: "linux", Date: "2026-01-01"}}, nil)
	for i := 0; i < 100; i++ {
		a.conv.history = append(a.conv.history,
			entry{Role: "assistant", Text: "Let me check.\n" + fakeai.ToolCall(fakeai.Call{Window: "file_1", Action: "view", Params: map[string]any{"start_line": i}})},
			entry{Role: "user", Text: protocol.RenderResults([]protocol.Result{{CallID: "call_1_1", WindowID: "file_1", ActionID: "view", Status: "ok", Text: "viewport at lines 1-200"}})})
	}
	a.conv.views.refresh(&a.conv.history[len(a.conv.history)-1])
	for i := range a.conv.history {
		a.conv.history[i].freeze()
	}
	reply := "I'll fix it.\n" + fakeai.ToolCall(fakeai.Call{Window: "file_1", Action: "edit", Params: map[string]any{"old_text": "a + b", "new_text": "a - b"}})
	b.ResetTimer()
	for b.Loop() {
		protocol.Parse(reply, 7)
		var e entry
		a.conv.views.refresh(&e) // every window checked for changes
		_ = a.Messages()
	}
}

// BenchmarkFirstRequestBytes reports the size of the first request body
// for a one-line question, as sent on the wire.
func BenchmarkFirstRequestBytes(b *testing.B) {
	srv := fakeai.New(b)
	srv.Handle(func(fakeai.Request) fakeai.Reply { return fakeai.Reply{Content: "ok"} })
	dir := b.TempDir()
	wm := windows.NewManager(windows.Env{Workdir: dir}, windows.FileApp, windows.BashApp, windows.WebApp)
	client := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, APIKey: "k", Model: "gpt-5-mini", Stream: true})
	hints := prompt.Hints{Workdir: "/home/user/project", OS: "linux/amd64", Date: "2026-11-22"}
	var size int
	for b.Loop() {
		a := New(client, wm, Config{BasePrompt: readSystemPrompt(b), Hints: hints}, nil)
		if _, err := a.Run(context.Background(), "What does calc.go do?"); err != nil {
			b.Fatal(err)
		}
		reqs := srv.Requests()
		size = len(reqs[len(reqs)-1].Body)
	}
	b.ReportMetric(float64(size), "request-bytes")
}
