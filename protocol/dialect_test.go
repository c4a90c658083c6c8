package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDialects(t *testing.T) {
	tests := []struct {
		name   string
		reply  string
		calls  []string          // "window.action" or "ERR:substring"
		params map[string]string // call 1's params, raw JSON
		text   string
	}{
		{name: "hermes dotted name", reply: `<tool_call>{"name": "file_1.edit", "arguments": {"old_text": "a", "new_text": "b"}}</tool_call>`,
			calls: []string{"file_1.edit"}, params: map[string]string{"old_text": `"a"`, "new_text": `"b"`}},
		{name: "hermes arguments as string", reply: `<tool_call>{"name": "bash_1.run", "arguments": "{\"command\": \"go test\"}"}</tool_call>`,
			calls: []string{"bash_1.run"}, params: map[string]string{"command": `"go test"`}},
		{name: "hermes window_id among arguments", reply: `<tool_call>{"name": "open", "arguments": {"window_id": "launcher", "app": "file", "target": "a.go"}}</tool_call>`,
			calls: []string{"launcher.open"}, params: map[string]string{"app": `"file"`, "target": `"a.go"`}},
		{name: "hermes window_id beside", reply: `<tool_call>{"name": "close", "window_id": "file_1"}</tool_call>`, calls: []string{"file_1.close"}, params: map[string]string{}},
		{name: "hermes parameters synonym", reply: `<tool_call>{"name": "file_1.view", "parameters": {"start_line": 3}}</tool_call>`,
			calls: []string{"file_1.view"}, params: map[string]string{"start_line": `3`}},
		{name: "hermes empty string arguments", reply: `<tool_call>{"name": "file_1.close", "arguments": ""}</tool_call>`, calls: []string{"file_1.close"}, params: map[string]string{}},
		{name: "hermes inside calls array", reply: `<tool_call>{"calls": [{"name": "a.b"}, {"window_id": "c", "action_id": "d"}]}</tool_call>`, calls: []string{"a.b", "c.d"}},
		{name: "hermes two blocks", reply: "Opening.\n<tool_call>\n{\"name\": \"launcher.open\", \"arguments\": {\"app\": \"bash\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"bash_1.run\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>",
			calls: []string{"launcher.open", "bash_1.run"}, text: "Opening."},
		{name: "hermes no window", reply: `<tool_call>{"name": "edit", "arguments": {}}</tool_call>`, calls: []string{`ERR:"name" "edit" names no window`}},
		{name: "hermes empty action", reply: `<tool_call>{"name": "file_1.", "arguments": {}}</tool_call>`, calls: []string{`ERR:must be "WINDOW_ID.ACTION_ID"`}},
		{name: "hermes name not string", reply: `<tool_call>{"name": 5, "arguments": {}}</tool_call>`, calls: []string{`ERR:"name" must be a string, got a number`}},
		{name: "hermes arguments array", reply: `<tool_call>{"name": "a.b", "arguments": [1]}</tool_call>`, calls: []string{`ERR:"arguments" must be an object, got an array`}},
		{name: "hermes arguments bad string", reply: `<tool_call>{"name": "a.b", "arguments": "{\"x\": }"}</tool_call>`, calls: []string{`ERR:"arguments" is a string holding malformed JSON`}},
		{name: "hermes arguments plain string", reply: `<tool_call>{"name": "a.b", "arguments": "ls -la"}</tool_call>`, calls: []string{`ERR:"arguments" is a string that does not hold a JSON object`}},
		{name: "hermes conflicting windows", reply: `<tool_call>{"name": "a.b", "arguments": {"window_id": "c"}}</tool_call>`, calls: []string{`ERR:two windows given: "a" in the name and "c" as window_id`}},
		{name: "hermes both argument keys", reply: `<tool_call>{"name": "a.b", "arguments": {}, "parameters": {}}</tool_call>`, calls: []string{`ERR:both "arguments" and "parameters"`}},
		{name: "hermes unknown field", reply: `<tool_call>{"name": "a.b", "args": {}}</tool_call>`, calls: []string{`ERR:unknown field "args"`}},

		{name: "function dialect", reply: "I'll edit.\n<tool_call>\n<function=file_1.edit>\n<parameter=old_text>\nreturn a - b\n</parameter>\n<parameter=new_text>\nreturn a + b\n</parameter>\n</function>\n</tool_call>",
			calls: []string{"file_1.edit"}, params: map[string]string{"old_text": `"return a - b"`, "new_text": `"return a + b"`}, text: "I'll edit."},
		{name: "function inline values", reply: `<tool_call><function=file_1.view><parameter=start_line>10</parameter><parameter=end_line>20</parameter></function></tool_call>`,
			calls: []string{"file_1.view"}, params: map[string]string{"start_line": `"10"`, "end_line": `"20"`}},
		{name: "function keeps inner newlines", reply: "<tool_call><function=file_1.write><parameter=content>\n\nline 1\nline 2\n\n</parameter></function></tool_call>",
			calls: []string{"file_1.write"}, params: map[string]string{"content": `"\nline 1\nline 2\n"`}},
		{name: "function window_id parameter", reply: `<tool_call><function=run><parameter=window_id>bash_1</parameter><parameter=command>ls</parameter></function></tool_call>`,
			calls: []string{"bash_1.run"}, params: map[string]string{"command": `"ls"`}},
		{name: "function no parameters", reply: `<tool_call><function=file_1.close></function></tool_call>`, calls: []string{"file_1.close"}, params: map[string]string{}},
		{name: "two functions in one block", reply: "<tool_call>\n<function=launcher.open>\n<parameter=app>\nbash\n</parameter>\n</function>\n<function=bash_1.run>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>",
			calls: []string{"launcher.open", "bash_1.run"}},
		{name: "function missing closing tags", reply: "<tool_call>\n<function=bash_1.run>\n<parameter=command>\nls\n", calls: []string{"bash_1.run"}, params: map[string]string{"command": `"ls"`}},
		{name: "parameter missing close", reply: "<tool_call><function=a.b><parameter=x>1<parameter=y>2</parameter></function></tool_call>", calls: []string{"a.b"}, params: map[string]string{"x": `"1"`, "y": `"2"`}},
		{name: "function no window", reply: `<tool_call><function=run><parameter=command>ls</parameter></function></tool_call>`, calls: []string{`ERR:"name" "run" names no window`}},
		{name: "function empty name", reply: `<tool_call><function=><parameter=command>ls</parameter></function></tool_call>`, calls: []string{`ERR:malformed <function=...> tag`}},
		{name: "function stray text", reply: `<tool_call><function=a.b>hello<parameter=x>1</parameter></function></tool_call>`, calls: []string{`ERR:unexpected text "hello`}},
		{name: "function duplicate parameter", reply: `<tool_call><function=a.b><parameter=x>1</parameter><parameter=x>2</parameter></function></tool_call>`, calls: []string{`ERR:parameter "x" given twice`}},
		{name: "text between functions", reply: `<tool_call><function=a.b></function> and then <function=c.d></function></tool_call>`, calls: []string{"a.b", `ERR:unexpected text "and then`}},

		{name: "bare call object", reply: `{"name": "bash_1.run", "arguments": {"command": "ls"}}`, calls: []string{"bash_1.run"}, params: map[string]string{"command": `"ls"`}},
		{name: "bare canonical in fence", reply: "```json\n{\"calls\": [{\"window_id\": \"file_1\", \"action_id\": \"view\", \"params\": {}}]}\n```", calls: []string{"file_1.view"}},
		{name: "bare canonical single", reply: ` {"window_id": "file_1", "action_id": "close"} `, calls: []string{"file_1.close"}},
		{name: "bare functions", reply: "<function=file_1.close>\n</function>", calls: []string{"file_1.close"}},
		{name: "bare bad call is an error", reply: `{"name": "run", "arguments": {"command": "ls"}}`, calls: []string{`ERR:names no window`}},
		{name: "json answer stays an answer", reply: `{"name": "Ada", "age": 36}`, text: `{"name": "Ada", "age": 36}`},
		{name: "prose with a call object is an answer", reply: "Call it like this: {\"name\": \"a.b\", \"arguments\": {}}", text: "Call it like this: {\"name\": \"a.b\", \"arguments\": {}}"},
		{name: "two fences are an answer", reply: "```json\n{\"window_id\": \"a\", \"action_id\": \"b\"}\n```\nand\n```json\n{}\n```", text: "```json"},
		{name: "malformed bare json is an answer", reply: `{"name": "a.b", "arguments": {`, text: `{"name": "a.b", "arguments": {`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse(tt.reply, 2)
			checkCalls(t, p.Calls, tt.calls)
			if tt.params != nil {
				got := map[string]string{}
				for k, v := range p.Calls[0].Params {
					got[k] = string(v)
				}
				if !reflect.DeepEqual(got, tt.params) {
					t.Errorf("params = %v, want %v", got, tt.params)
				}
			}
			if tt.text != "" && !strings.HasPrefix(p.Text, tt.text) {
				t.Errorf("text = %q, want it to start with %q", p.Text, tt.text)
			}
		})
	}
}

// TestDialectsAgree checks that every dialect of one call parses to the
// same Call as the canonical form.
func TestDialectsAgree(t *testing.T) {
	canonical := Parse(`<tool_call>{"calls":[{"window_id":"bash_1","action_id":"run","params":{"command":"go test ./..."}}]}</tool_call>`, 1).Calls
	for _, reply := range []string{
		`<tool_call>{"name":"bash_1.run","arguments":{"command":"go test ./..."}}</tool_call>`,
		`<tool_call>{"name":"run","arguments":"{\"window_id\":\"bash_1\",\"command\":\"go test ./...\"}"}</tool_call>`,
		"<tool_call>\n<function=bash_1.run>\n<parameter=command>\ngo test ./...\n</parameter>\n</function>\n</tool_call>",
		"```json\n{\"name\":\"bash_1.run\",\"arguments\":{\"command\":\"go test ./...\"}}\n```",
		`{"window_id":"bash_1","action_id":"run","params":{"command":"go test ./..."}}`,
	} {
		got := Parse(reply, 1).Calls
		if len(got) != 1 || got[0].Err != "" {
			t.Errorf("%s: %+v", reply, got)
			continue
		}
		var a, b any
		_ = json.Unmarshal(got[0].Params["command"], &a)
		_ = json.Unmarshal(canonical[0].Params["command"], &b)
		if got[0].ID != canonical[0].ID || got[0].WindowID != canonical[0].WindowID || got[0].ActionID != canonical[0].ActionID || a != b {
			t.Errorf("%s:\n got %+v\nwant %+v", reply, got[0], canonical[0])
		}
	}
}

func FuzzParseDialects(f *testing.F) {
	for _, s := range []string{
		`<tool_call>{"name":"file_1.edit","arguments":{"old_text":"a","new_text":"b"}}</tool_call>`,
		`<tool_call>{"name":"run","arguments":"{\"window_id\":\"bash_1\",\"command\":\"ls\"}"}</tool_call>`,
		"<tool_call>\n<function=file_1.edit>\n<parameter=old_text>\na\n</parameter>\n<parameter=new_text>\nb\n</parameter>\n</function>\n</tool_call>",
		"<function=run><parameter=window_id>bash_1</parameter><parameter=command>ls",
		"```json\n{\"name\":\"a.b\",\"arguments\":{}}\n```",
		`{"calls":[{"name":"x","window_id":"y"}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		p := Parse(reply, 1)
		for _, c := range p.Calls {
			if c.Err == "" && (c.WindowID == "" || c.ActionID == "") {
				t.Fatalf("call without error lacks ids: %+v", c)
			}
			if c.Err == "" && c.Params == nil {
				t.Fatalf("call without error has nil params: %+v", c)
			}
			if _, ok := c.Params["window_id"]; ok && c.Err == "" && strings.Contains(reply, `"name"`) && !strings.Contains(reply, `"action_id"`) && !strings.Contains(reply, "<function=") {
				t.Fatalf("window_id left among the params of a named call: %+v", c)
			}
		}
	})
}

func BenchmarkParseDialects(b *testing.B) {
	for name, reply := range map[string]string{
		"named":    "I'll fix it.\n<tool_call>\n{\"name\": \"file_1.edit\", \"arguments\": {\"old_text\": \"return a - b\", \"new_text\": \"return a + b\"}}\n</tool_call>",
		"function": "I'll fix it.\n<tool_call>\n<function=file_1.edit>\n<parameter=old_text>\nreturn a - b\n</parameter>\n<parameter=new_text>\nreturn a + b\n</parameter>\n</function>\n</tool_call>",
		"bare":     "```json\n{\"name\": \"file_1.edit\", \"arguments\": {\"old_text\": \"return a - b\", \"new_text\": \"return a + b\"}}\n```",
		"answer":   "The function subtracts where it should add; I fixed it and the tests pass.",
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Parse(reply, 7)
			}
		})
	}
}
