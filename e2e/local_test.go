package e2e

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The open-model paths through the built binary, in pipe mode.

func TestPipeReasoningModel(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Reasoning: "The user wants a file.", Content: "<think>Open it first.</think>\n{\"name\": \"launcher.open\", \"arguments\": {\"app\": \"file\", \"target\": \"notes.txt\"}}"},
		fakeai.Reply{Content: "<tool_call>\n<function=file_1.write>\n<parameter=content>\nhello\n</parameter>\n</function>\n</tool_call>"},
		fakeai.Reply{Content: "Checked.\n</think>\nWrote notes.txt."},
	)
	dir := t.TempDir()
	r := aci(t, dir, srv, "", nil, "-p", "write hello to notes.txt")
	if r.code != 0 || r.stdout != "Wrote notes.txt.\n" {
		t.Fatalf("%d %q\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "Open it first") || strings.Contains(r.stdout+r.stderr, "Checked.") {
		t.Errorf("reasoning shown in pipe mode:\n%s", r.stderr)
	}
	for _, req := range srv.Requests() {
		if strings.Contains(string(req.Body), "Open it first") || strings.Contains(string(req.Body), "user wants a file") {
			t.Errorf("reasoning sent back in request %d", req.N)
		}
	}
}

func TestPipeContextWindowTooSmall(t *testing.T) {
	srv := fakeai.New(t)
	srv.SetInfo(fakeai.Info{Models: []string{"test-model"}, OllamaNumCtx: 2048})
	r := aci(t, t.TempDir(), srv, strings.Repeat("a long pasted log line\n", 600), nil)
	if r.code != 1 || !strings.Contains(r.stderr, "OLLAMA_CONTEXT_LENGTH=32768 ollama serve") || len(srv.Requests()) != 0 {
		t.Fatalf("%d %q, %d requests", r.code, r.stderr, len(srv.Requests()))
	}
}
