package hooks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/tools/settings"
)

func runner(t *testing.T, notices *[]string, groups ...settings.HookGroup) *Runner {
	t.Helper()
	return New(groups, Config{SessionID: func() string { return "s1" }, TranscriptPath: func() string { return "/t.jsonl" },
		Cwd: t.TempDir(), Notice: func(s string) { *notices = append(*notices, s) }})
}

func hook(event, matcher, command string, timeout int) settings.HookGroup {
	return settings.HookGroup{Event: event, Matcher: matcher, Hooks: []settings.HookCommand{{Command: command, Timeout: timeout}}, Source: "test"}
}

// Exit codes and JSON replies decide as in Claude Code; the matcher is
// anchored (Edit matches Edit, not NotebookEdit); the input carries the
// common fields.
func TestDecisions(t *testing.T) {
	var notes []string
	for _, tc := range []struct {
		name, command string
		want          Outcome
	}{
		{"exit 0", "exit 0", Outcome{}},
		{"exit 2", "echo no >&2; exit 2", Outcome{Block: true, Reason: "no", Decision: "deny"}},
		{"exit 1 is a notice", "echo broken >&2; exit 1", Outcome{}},
		{"deny", `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "policy"}}'`, Outcome{Block: true, Reason: "policy", Decision: "deny"}},
		{"ask", `echo '{"hookSpecificOutput": {"permissionDecision": "ask"}}'`, Outcome{Decision: "ask"}},
		{"allow", `echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'`, Outcome{Decision: "allow"}},
		{"block", `echo '{"decision": "block", "reason": "later"}'`, Outcome{Block: true, Reason: "later", Decision: "deny"}},
		{"continue false", `echo '{"continue": false, "stopReason": "enough"}'`, Outcome{Stop: true, StopReason: "enough"}},
	} {
		r := runner(t, &notes, hook("PreToolUse", "Bash|Edit", tc.command, 0))
		got := r.Run(context.Background(), "PreToolUse", "Edit", map[string]any{"tool_name": "Edit"})
		if (got.Block || got.Stop) && got.Whose() != "the person's" {
			t.Errorf("%s: a hook of the person's settings is %s", tc.name, got.Whose())
		}
		got.byPerson, got.byProject = false, false
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		if got := r.Run(context.Background(), "PreToolUse", "NotebookEdit", nil); got != (Outcome{}) {
			t.Errorf("%s: the matcher matched NotebookEdit: %+v", tc.name, got)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "exited 1: broken") {
		t.Errorf("notices %q", notes)
	}
	// The input: the common fields and the event's own.
	r := runner(t, &notes, hook("UserPromptSubmit", "", "printf 'in: '; cat", 0))
	out := r.Run(context.Background(), "UserPromptSubmit", "", map[string]any{"prompt": "hi"})
	var in map[string]any
	if err := json.Unmarshal([]byte(strings.TrimPrefix(out.Context, "in: ")), &in); err != nil || in["session_id"] != "s1" || in["hook_event_name"] != "UserPromptSubmit" ||
		in["prompt"] != "hi" || in["transcript_path"] != "/t.jsonl" {
		t.Errorf("input %s (%v)", out.Context, err)
	}
}

// A hook past its timeout is ended, with what it started, and said.
func TestTimeout(t *testing.T) {
	var notes []string
	r := runner(t, &notes, hook("Stop", "", "sleep 30 & sleep 30", 1))
	start := time.Now()
	out := r.Run(context.Background(), "Stop", "", nil)
	if took := time.Since(start); took > 5*time.Second || out.Block {
		t.Errorf("took %s, outcome %+v", took, out)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "timed out") {
		t.Errorf("notices %q", notes)
	}
}

// No hooks: no runner, and a nil runner runs nothing.
func TestNone(t *testing.T) {
	r := New(nil, Config{})
	if r != nil || r.Has("Stop") || r.Run(context.Background(), "Stop", "", nil) != (Outcome{}) {
		t.Error("a runner without hooks")
	}
}
