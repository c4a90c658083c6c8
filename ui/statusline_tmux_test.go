//go:build unix

package ui

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

// statusPane starts the REPL in a git work tree with statusLine set to
// command in the person's settings.
func statusPane(t *testing.T, srv *fakeai.Server, command string) (*pane, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	work, home := t.TempDir(), t.TempDir()
	if out, err := exec.Command("git", "-C", work, "init", "-q", "-b", "feature-x").CombinedOutput(); err != nil {
		t.Fatalf("git init: %s", out)
	}
	os.MkdirAll(filepath.Join(home, ".config", "aci"), 0o755)
	cfg, _ := json.Marshal(map[string]any{"statusLine": map[string]any{"type": "command", "command": command}})
	testfs.File(t, filepath.Join(home, ".config", "aci", "settings.json"), string(cfg))
	return startPaneIn(t, srv, work, home, nil, func(bin string) []string { return []string{bin} }), work
}

// The status line shows the command's first line under the prompt,
// refreshed after a turn, given the session as JSON in Claude Code's shape.
func TestREPLStatusLine(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t, fakeai.Reply{Content: "first answer"})
	record := filepath.Join(t.TempDir(), "input.json")
	script := filepath.Join(t.TempDir(), "status.sh")
	testfs.File(t, script, "#!/bin/sh\ncat > "+record+"\nn=$(cat "+record+".n 2>/dev/null || echo 0); n=$((n+1)); echo $n > "+record+".n\necho \"STATUS run $n\"\necho second line never shown\n")
	os.Chmod(script, 0o755)
	s, work := statusPane(t, srv, script)
	scr := s.waitFor("STATUS run 1")
	if strings.Contains(scr, "second line never shown") {
		t.Error("the status line showed more than the first line")
	}
	if lines := strings.Split(strings.TrimRight(s.waitPrompt(), "\n "), "\n"); len(lines) < 2 || strings.TrimSpace(lines[len(lines)-2]) != "STATUS run 1" {
		t.Errorf("the status line is not by the prompt:\n%s", scr)
	}
	s.typeLine("hello")
	s.waitFor("first answer")
	s.waitFor("STATUS run 2")
	var in struct {
		HookEventName  string `json:"hook_event_name"`
		SessionID      string `json:"session_id"`
		TranscriptPath string `json:"transcript_path"`
		Cwd            string
		Model          struct{ ID string }
		Workspace      struct {
			CurrentDir string `json:"current_dir"`
		}
		PermissionMode string `json:"permission_mode"`
		Cost           struct {
			TotalCostUSD *float64 `json:"total_cost_usd"`
		}
		ContextWindow struct {
			TotalInputTokens int64 `json:"total_input_tokens"`
		} `json:"context_window"`
		Git struct{ Branch string }
	}
	data, _ := os.ReadFile(record)
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("the command read %q: %v", data, err)
	}
	if in.HookEventName != "Status" || in.SessionID == "" || !strings.HasSuffix(in.TranscriptPath, in.SessionID+".jsonl") || in.Cwd != work ||
		in.Workspace.CurrentDir != work || in.Model.ID != "test-model" || in.PermissionMode == "" || in.ContextWindow.TotalInputTokens == 0 || in.Git.Branch != "feature-x" {
		t.Errorf("the command read %s", data)
	}
}

// A status command that is too slow, or prints escape codes, is dropped
// with one notice; the prompt never waits for it.
func TestREPLStatusLineDropped(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ command, notice string }{
		"slow":    {"sleep 30; echo LATEXYZ", "took longer than 2s"},
		"escapes": {`printf '\033[31mREDXYZ\n'`, "escape codes"},
		"fails":   {"echo BROKENXYZ; exit 3", "the command failed"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := fakeai.New(t, fakeai.Reply{Content: "answered anyway"}, fakeai.Reply{Content: "again"})
			s, _ := statusPane(t, srv, tc.command)
			s.waitFor("›")
			s.typeLine("hello") // answered while a slow command still sleeps
			s.waitFor("answered anyway")
			s.waitPrompt()
			time.Sleep(statusTimeout + 500*time.Millisecond) // the slow one is past its deadline
			s.typeLine("more")
			s.waitFor("again")
			s.waitFor(tc.notice)
			s.waitPrompt()
			scr := s.screen()
			if n := strings.Count(scr, "statusLine dropped"); n != 1 {
				t.Errorf("%d notices:\n%s", n, scr)
			}
			if strings.Contains(scr, "LATEXYZ") || strings.Contains(scr, "REDXYZ") || strings.Contains(scr, "BROKENXYZ") {
				t.Errorf("a dropped line was shown:\n%s", scr)
			}
		})
	}
}
