package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// renderDeltas renders one reply streamed in the given pieces.
func renderDeltas(deltas ...string) string {
	var b strings.Builder
	r := newRenderer(&b, false, false)
	r.beginTurn()
	var f protocol.StreamFilter // the session's: the renderer gets filtered text
	for _, d := range deltas {
		r.event(session.Text{Text: f.Write(d)})
	}
	r.event(session.Text{Text: f.Flush()})
	r.endTurn()
	return b.String()
}

func TestRendererLayout(t *testing.T) {
	for _, tc := range []struct {
		name, reply, want string
	}{
		{"plain", "Hello.", "Hello.\n"},
		{"paragraphs kept", "One.\n\n- a\n- b\n", "One.\n\n- a\n- b\n"},
		{"leading and trailing blank lines dropped", "\n\nHi\n\n\n", "Hi\n"},
		{"at most one blank line", "a\n\n\n\nb", "a\n\nb\n"},
		{"call in the middle", "Look.\n\n<tool_call>\n{}\n</tool_call>\n\nDone.", "Look.\n\nDone.\n"},
		{"call at the end", "Let me edit it.\n<tool_call>{}</tool_call>\n", "Let me edit it.\n"},
		{"controls removed", "\x1b[2Jred\r\n", "[2Jred\n"},
	} {
		// Whole, and in every two-piece split.
		if got := renderDeltas(tc.reply); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		for i := 1; i < len(tc.reply); i++ {
			if got := renderDeltas(tc.reply[:i], tc.reply[i:]); got != tc.want {
				t.Errorf("%s split at %d: got %q, want %q", tc.name, i, got, tc.want)
				break
			}
		}
	}
}

func TestRendererCallLines(t *testing.T) {
	var b strings.Builder
	r := newRenderer(&b, false, false)
	r.beginTurn()
	r.event(session.Text{Text: "Fixing it"})
	params := map[string]json.RawMessage{"old_text": json.RawMessage(`"a"`)}
	call := protocol.Call{ID: "call_1_1", WindowID: "file_1", ActionID: "edit", Params: params}
	r.event(session.ToolCall{Call: call, Title: "calc/calc.go"})
	r.event(session.ToolResult{Call: call, Result: protocol.Result{Status: protocol.StatusOK, Text: "replaced 1 occurrence\nmore"}})
	bad := protocol.Call{ID: "call_1_2", Err: "malformed JSON"}
	r.event(session.ToolCall{Call: bad})
	r.event(session.ToolResult{Call: bad, Result: protocol.Result{Status: protocol.StatusError, Text: "malformed JSON"}})
	r.event(session.ToolResult{Call: call, Result: protocol.Result{Status: protocol.StatusDenied, Text: "the person did not approve"}})
	r.endTurn()
	want := "Fixing it\n" +
		"▸ edit calc/calc.go\n" +
		"  ✓ replaced 1 occurrence …\n" +
		"▸ a malformed call\n" +
		"  ✗ malformed JSON\n" +
		"  ⊘ the person did not approve\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The REPL names a call by the one description (windows' table of
// calls): the window's own when it ran, the table's from the event for a
// call stored with none; never by a switch of its own.
func TestRendererCallFromDescription(t *testing.T) {
	raw := func(kv ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for i := 0; i < len(kv); i += 2 {
			v, _ := json.Marshal(kv[i+1])
			m[kv[i]] = v
		}
		return m
	}
	for _, tc := range []struct {
		call  protocol.Call
		title string
		desc  windows.Description
		want  string
	}{
		{protocol.Call{WindowID: "launcher", ActionID: "open", Params: raw("app", "file", "target", "a.go")}, "Launcher", windows.Description{}, "open a.go"},
		{protocol.Call{WindowID: "bash_1", ActionID: "run", Params: raw("command", "go test ./...\necho done")}, "~/src", windows.Description{}, "run go test ./... …"},
		{protocol.Call{WindowID: "web_fetch_1", ActionID: "fetch", Params: raw("url", "https://go.dev")}, "", windows.Description{}, "fetch https://go.dev"},
		{protocol.Call{WindowID: "file_2", ActionID: "close"}, "x.go", windows.Description{}, "close x.go"},
		{protocol.Call{WindowID: "file_2", ActionID: "edit"}, "x.go", windows.Description{Title: "edit src/x.go", Kind: "edit"}, "edit src/x.go"},
	} {
		var b strings.Builder
		r := newRenderer(&b, false, false)
		r.beginTurn()
		ev := session.ToolCall{Call: tc.call, Title: tc.title, Desc: tc.desc}
		r.event(ev)
		r.endTurn()
		if got := strings.TrimSpace(b.String()); got != "▸ "+tc.want {
			t.Errorf("got %q, want %q", got, "▸ "+tc.want)
		}
		if d := ev.Described(""); d.Title != tc.want {
			t.Errorf("described %q, want %q", d.Title, tc.want)
		}
		if tc.desc.Title == "" {
			if d := windows.DescribeCall(windows.Call{WindowID: tc.call.WindowID, Title: tc.title, Action: tc.call.ActionID, Params: tc.call.Params}); d.Title != tc.want {
				t.Errorf("the table says %q, the REPL %q", d.Title, tc.want)
			}
		}
	}
}
