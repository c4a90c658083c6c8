package windows

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aci-dev/aci/protocol"
)

// Every call is described once, by the table of calls: its words, kind
// and files for people, and Claude Code's tool name and input for hooks.
func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "calc.py"), []byte("x = 1\n"), 0o644)
	allow := ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{Allow: true} })
	m := NewManager(Env{Workdir: dir, OutputLimit: 30000, Approver: allow}, FileApp, BashApp, WebApp)
	defer m.CloseAll()
	do(t, m, "launcher", "open", `{"app":"file","target":"calc.py"}`)
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	calc := filepath.Join(dir, "calc.py")
	type in = map[string]any
	for _, tc := range []struct {
		window, action, params string
		title, kind            string
		paths                  []string
		tool                   string
		input                  in
	}{
		{"launcher", "open", `{"app":"file","target":"calc.py"}`, "open calc.py", "read", []string{calc}, "Read", in{"file_path": calc}},
		{"launcher", "open", `{"app":"bash"}`, "open a shell", "execute", nil, "launcher.open", in{"app": "bash"}},
		{"launcher", "open", `{"app":"web_fetch","target":"https://go.dev"}`, "fetch https://go.dev", "fetch", nil, "WebFetch", in{"url": "https://go.dev"}},
		{"launcher", "open", `{"app":"web_fetch"}`, "fetch", "fetch", nil, "launcher.open", in{"app": "web_fetch"}},
		{"launcher", "open", `{"app":"search","target":"go context"}`, "search the web for go context", "fetch", nil, "WebSearch", in{"query": "go context"}},
		{"launcher", "open", `{"app":"search"}`, "open a web search", "fetch", nil, "launcher.open", in{"app": "search"}},
		{"launcher", "open", `{"app":"image","target":"shot.png"}`, "look at shot.png", "read", []string{filepath.Join(dir, "shot.png")}, "Read", in{"file_path": filepath.Join(dir, "shot.png")}},
		{"launcher", "open", `{"app":"agent","target":"find the bug\nthen stop"}`, "start an agent: find the bug …", "other", nil, "launcher.open", in{"app": "agent", "target": "find the bug\nthen stop"}},
		{"launcher", "open", `{"app":"skill","target":"pdf"}`, "use the skill pdf", "read", nil, "launcher.open", in{"app": "skill", "target": "pdf"}},
		{"launcher", "open", `{"app":"mcp","target":"github"}`, "start the MCP server github", "other", nil, "launcher.open", in{"app": "mcp", "target": "github"}},
		{"launcher", "open", `{"app":"notes","target":"x"}`, "open notes x", "other", nil, "launcher.open", in{"app": "notes", "target": "x"}},
		{"file_1", "edit", `{"old_text":"x = 1","new_text":"hello"}`, "edit calc.py", "edit", []string{calc}, "Edit",
			in{"file_path": calc, "old_string": "x = 1", "new_string": "hello", "replace_all": false}},
		{"file_1", "write", `{"content":"y"}`, "write calc.py", "edit", []string{calc}, "Write", in{"file_path": calc, "content": "y"}},
		{"file_1", "view", `{"start_line":40}`, "read calc.py from line 40", "read", []string{calc}, "Read", in{"file_path": calc, "offset": float64(40)}},
		{"file_1", "view", `{}`, "read calc.py", "read", []string{calc}, "Read", in{"file_path": calc}},
		{"file_1", "close", `{}`, "close calc.py", "other", nil, "file.close", in{}},
		{"bash_1", "run", `{"command":"go test ./...\necho done","timeout_s":5}`, "run go test ./... …", "execute", nil, "Bash",
			in{"command": "go test ./...\necho done", "timeout": float64(5000)}},
		{"bash_1", "start", `{"command":"make serve"}`, "start make serve in the background", "execute", nil, "Bash", in{"command": "make serve", "run_in_background": true}},
		{"bash_1", "kill", `{"task_id":"task_2"}`, "stop task task_2", "execute", nil, "bash.kill", in{"task_id": "task_2"}},
		{"bash_1", "close", `{}`, "close the shell in " + dir, "other", nil, "bash.close", in{}},
		// Windows that are gone (or were never open here): by the app their id names.
		{"web_fetch_2", "fetch", `{"url":"https://go.dev/doc"}`, "fetch https://go.dev/doc", "fetch", nil, "WebFetch", in{"url": "https://go.dev/doc"}},
		{"web_fetch_2", "page", `{"n":2}`, "page 2 of", "fetch", nil, "web_fetch.page", in{"n": float64(2)}},
		{"search_1", "search", `{"query":"go modules"}`, "search the web for go modules", "fetch", nil, "WebSearch", in{"query": "go modules"}},
		{"search_1", "open", `{"n":2}`, "open result 2", "fetch", nil, "search.open", in{"n": float64(2)}},
		{"search_1", "more", `{}`, "more results for", "fetch", nil, "search.more", in{}},
		{"agent_1", "tell", `{"text":"also the tests"}`, "tell the agent: also the tests", "other", nil, "agent.tell", in{"text": "also the tests"}},
		{"agent_1", "wait", `{}`, "wait for the agent on", "other", nil, "agent.wait", in{}},
		{"image_1", "close", `{}`, "close", "other", nil, "image.close", in{}},
		{"skill_1", "close", `{}`, "close", "other", nil, "skill.close", in{}},
		{"mcp_1", "close", `{}`, "close", "other", nil, "mcp.close", in{}},
		{"gone_9", "run", `{}`, "run", "other", nil, "gone.run", in{}},
	} {
		var p map[string]json.RawMessage
		json.Unmarshal([]byte(tc.params), &p)
		got := m.Describe(tc.window, tc.action, p)
		if got.Title != tc.title || got.Kind != tc.kind || !slices.Equal(got.Paths, tc.paths) {
			t.Errorf("%s.%s %s: %q %s %v, want %q %s %v", tc.window, tc.action, tc.params, got.Title, got.Kind, got.Paths, tc.title, tc.kind, tc.paths)
		}
		if got.Tool != tc.tool || !reflect.DeepEqual(got.Input, tc.input) {
			t.Errorf("%s.%s %s: tool %s %v, want %s %v", tc.window, tc.action, tc.params, got.Tool, got.Input, tc.tool, tc.input)
		}
		if strings.Contains(got.Title, "bash_1") || strings.Contains(got.Title, "file_1") {
			t.Errorf("%q names a window id", got.Title)
		}
	}
}

// An MCP server's tools are Claude Code's mcp__SERVER__TOOL, by the
// server's name (the window's title); a stored call, which keeps no
// title, is MCP.ACTION.
func TestDescribeMCP(t *testing.T) {
	p := map[string]json.RawMessage{"q": json.RawMessage(`"x"`)}
	d := DescribeCall(Call{WindowID: "mcp_1", Title: "github", Action: "search_issues", Params: p})
	if d.Tool != "mcp__github__search_issues" || d.Title != "github: search_issues" || !reflect.DeepEqual(d.Input, map[string]any{"q": "x"}) {
		t.Errorf("%+v", d)
	}
	if d := DescribeCall(Call{WindowID: "mcp_1", Action: "search_issues", Params: p}); d.Tool != "mcp.search_issues" {
		t.Errorf("untitled: %+v", d)
	}
}

// Every action every app offers gets a description from the table: words
// with no window id, an action kind of the one vocabulary, one tool name.
func TestEveryActionDescribed(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	allow := ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{Allow: true} })
	skill := Skill{Name: "pdf", Description: "pdfs", Read: func() (string, []string, error) { return "body", nil, nil }}
	m := NewManager(Env{Workdir: dir, OutputLimit: 30000, Approver: allow}, FileApp, BashApp, WebApp, SkillApp([]Skill{skill}))
	defer m.CloseAll()
	do(t, m, "launcher", "open", `{"app":"file","target":"a.txt"}`)
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	do(t, m, "launcher", "open", `{"app":"skill","target":"pdf"}`)
	kinds := []string{protocol.KindRead, protocol.KindEdit, protocol.KindExecute, protocol.KindFetch, protocol.KindOther}
	claude := []string{protocol.ToolBash, protocol.ToolRead, protocol.ToolEdit, protocol.ToolWrite, protocol.ToolWebFetch, protocol.ToolWebSearch}
	n := 0
	for _, w := range m.Windows() {
		for _, a := range w.Actions() {
			n++
			d := m.Describe(w.ID(), a.ID, map[string]json.RawMessage{"app": json.RawMessage(`"file"`), "target": json.RawMessage(`"a.txt"`)})
			if d.Title == "" || strings.Contains(d.Title, w.ID()+" ") || !slices.Contains(kinds, d.Kind) {
				t.Errorf("%s.%s: %+v", w.ID(), a.ID, d)
			}
			if !slices.Contains(claude, d.Tool) && d.Tool != w.App()+"."+a.ID {
				t.Errorf("%s.%s: tool %q", w.ID(), a.ID, d.Tool)
			}
		}
	}
	// Every row of the table names an app and an action, and a kind of the vocabulary.
	for key, r := range calls {
		if !strings.Contains(key, ".") || !slices.Contains(kinds, r.kind) || (r.tool != "" && r.input == nil) {
			t.Errorf("row %s: %+v", key, r)
		}
	}
	if n < 8 {
		t.Errorf("%d actions seen", n)
	}
}
