package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// writeSettings puts settings in home's settings.json.
func writeSettings(t *testing.T, home, settings string) {
	t.Helper()
	p := filepath.Join(home, ".config", "aci", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestREPLKeepsSettingsBudgets: the person's settings limits hold in the
// REPL. max_turns: the third question is not sent, the REPL says why and
// reads the next line. max_budget_usd: a turn that spends it ends before
// its next request; the session stays usable for /commands.
func TestREPLKeepsSettingsBudgets(t *testing.T) {
	t.Parallel()
	t.Run("max_turns", func(t *testing.T) {
		t.Parallel()
		srv := fakeai.New(t, fakeai.Reply{Content: "Answer one."}, fakeai.Reply{Content: "Answer two."})
		home := t.TempDir()
		writeSettings(t, home, `{"limits": {"max_turns": 2}}`)
		s := startPaneIn(t, srv, t.TempDir(), home, nil, func(bin string) []string { return []string{bin} })
		s.waitPrompt()
		s.exchange("first question", "Answer one.")
		s.exchange("second question", "Answer two.")
		s.exchange("third question", "⊘ limit (turns): turn limit reached: this session has had 2 turns of 2")
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d requests, want 2: the third question was sent", n)
		}
		s.exit()
	})
	t.Run("max_budget_usd", func(t *testing.T) {
		t.Parallel()
		srv := fakeai.New(t)
		n := 0
		srv.Handle(func(fakeai.Request) fakeai.Reply {
			n++
			return fakeai.Reply{Content: fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": strings.Repeat("n", n) + ".txt"}}),
				PromptTokens: 1000, CompletionTokens: 10}
		})
		home := t.TempDir()
		// $1 a request: the second spends the budget of $1.50.
		writeSettings(t, home, `{"prices": {"test-model": {"input": 1000, "output": 0}}, "limits": {"max_budget_usd": 1.5}}`)
		s := startPaneIn(t, srv, t.TempDir(), home, nil, func(bin string) []string { return []string{bin} })
		s.waitPrompt()
		s.exchange("work until told", "⊘ limit (budget): budget reached: spent $2.00 of $1.50")
		if got := len(srv.Requests()); got != 2 {
			t.Errorf("%d requests, want 2", got)
		}
		s.typeLine("and more")
		s.waitUntil("a second limit line", func(scr string) bool {
			return strings.Count(scr, "⊘ limit (budget): budget reached: spent $2.00 of $1.50") == 2
		})
		s.waitPrompt()
		if got := len(srv.Requests()); got != 2 {
			t.Errorf("%d requests after the budget was spent, want 2", got)
		}
		s.exit()
	})
}
