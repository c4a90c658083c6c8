package protocol

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		reply   string
		calls   []string // "window.action" or "ERR:substring"
		text    string
		paramOK string // a param key that must be present in call 1
	}{
		{name: "no call", reply: "The answer is 42.", text: "The answer is 42."},
		{name: "calls array", reply: `Let me look.
<tool_call>
{"calls":[{"window_id":"launcher","action_id":"open","params":{"app":"file","target":"a.go"}},{"window_id":"file_1","action_id":"view","params":{"start_line":1}}]}
</tool_call>`, calls: []string{"launcher.open", "file_1.view"}, text: "Let me look.", paramOK: "app"},
		{name: "single object", reply: `<tool_call>{"window_id":"file_1","action_id":"close"}</tool_call>`, calls: []string{"file_1.close"}},
		{name: "bare array", reply: `<tool_call>[{"window_id":"a","action_id":"b"}]</tool_call>`, calls: []string{"a.b"}},
		{name: "code fence", reply: "<tool_call>\n```json\n{\"calls\":[{\"window_id\":\"file_1\",\"action_id\":\"view\",\"params\":{}}]}\n```\n</tool_call>", calls: []string{"file_1.view"}},
		{name: "two blocks and trailing text", reply: "a <tool_call>{\"window_id\":\"x\",\"action_id\":\"y\"}</tool_call> b <tool_call>{\"window_id\":\"z\",\"action_id\":\"w\"}</tool_call>\ntrailing", calls: []string{"x.y", "z.w"}, text: "a  b \ntrailing"},
		{name: "missing close tag", reply: `<tool_call>{"window_id":"x","action_id":"y"}`, calls: []string{"x.y"}},
		{name: "two values in one block", reply: `<tool_call>{"window_id":"x","action_id":"y"} {"window_id":"z","action_id":"w"}</tool_call>`, calls: []string{"x.y", "z.w"}},
		{name: "malformed json", reply: `<tool_call>{"calls":[{"window_id":"x",}]}</tool_call>`, calls: []string{"ERR:malformed JSON in <tool_call> block 1 at offset"}},
		{name: "truncated json", reply: `<tool_call>{"calls":[{"window_id":"x"`, calls: []string{"ERR:unexpected end of JSON"}},
		{name: "empty block", reply: `<tool_call>  </tool_call>`, calls: []string{"ERR:block 1 is empty"}},
		{name: "missing window", reply: `<tool_call>{"action_id":"y"}</tool_call>`, calls: []string{`ERR:missing "window_id"`}},
		{name: "params not object", reply: `<tool_call>{"window_id":"x","action_id":"y","params":[1]}</tool_call>`, calls: []string{`ERR:"params" must be an object, got an array`}},
		{name: "unknown field", reply: `<tool_call>{"window_id":"x","action_id":"y","path":"a"}</tool_call>`, calls: []string{`ERR:unknown field "path"`}},
		{name: "calls not array", reply: `<tool_call>{"calls":{"window_id":"x"}}</tool_call>`, calls: []string{`ERR:"calls" must be an array`}},
		{name: "empty calls", reply: `<tool_call>{"calls":[]}</tool_call>`, calls: []string{`ERR:array is empty`}},
		{name: "string value", reply: `<tool_call>"open file"</tool_call>`, calls: []string{`ERR:holds a string`}},
		{name: "bad item then good", reply: `<tool_call>{"calls":[5,{"window_id":"x","action_id":"y"}]}</tool_call>`, calls: []string{`ERR:call 1: expected an object`, "x.y"}},
		{name: "window id not string", reply: `<tool_call>{"window_id":3,"action_id":"y"}</tool_call>`, calls: []string{`ERR:"window_id" must be a string, got a number`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse(tt.reply, 3)
			checkCalls(t, p.Calls, tt.calls)
			for i, c := range p.Calls {
				if wantID := "call_3_" + string(rune('1'+i)); c.ID != wantID {
					t.Errorf("call %d id = %q, want %q", i, c.ID, wantID)
				}
			}
			if tt.text != "" && p.Text != tt.text {
				t.Errorf("text = %q, want %q", p.Text, tt.text)
			}
			if tt.paramOK != "" {
				if _, ok := p.Calls[0].Params[tt.paramOK]; !ok {
					t.Errorf("param %q missing: %v", tt.paramOK, p.Calls[0].Params)
				}
			}
		})
	}
}

func TestRenderResults(t *testing.T) {
	got := RenderResults([]Result{
		{CallID: "call_3_1", WindowID: "file_1", ActionID: "edit", Status: StatusOK, Text: "replaced 1 occurrence"},
		{CallID: "call_3_2", WindowID: "bash_9", ActionID: "run", Status: StatusError, Text: "x</result>y"},
	})
	want := `<tool_results>
<result call_id="call_3_1" window_id="file_1" action_id="edit" status="ok">replaced 1 occurrence</result>
<result call_id="call_3_2" window_id="bash_9" action_id="run" status="error">x<\/result>y</result>
</tool_results>`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`<tool_call>{"calls":[{"window_id":"a","action_id":"b","params":{"x":1}}]}</tool_call>`)
	f.Fuzz(func(t *testing.T, reply string) {
		p := Parse(reply, 1)
		for _, c := range p.Calls {
			if c.Err == "" && (c.WindowID == "" || c.ActionID == "") {
				t.Fatalf("call without error lacks ids: %+v", c)
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	reply := "I'll fix it.\n<tool_call>\n{\"calls\":[{\"window_id\":\"file_1\",\"action_id\":\"edit\",\"params\":{\"old_text\":\"return a - b\",\"new_text\":\"return a + b\"}},{\"window_id\":\"bash_1\",\"action_id\":\"run\",\"params\":{\"command\":\"go test ./...\"}}]}\n</tool_call>"
	for b.Loop() {
		Parse(reply, 7)
	}
}

// checkCalls compares parsed calls with want: "window.action" for a
// call, "ERR:" and a part of the error for a call that is one.
func checkCalls(t *testing.T, calls []Call, want []string) {
	t.Helper()
	if len(calls) != len(want) {
		t.Fatalf("got %d calls %+v, want %d", len(calls), calls, len(want))
	}
	for i, w := range want {
		c := calls[i]
		if sub, ok := strings.CutPrefix(w, "ERR:"); ok {
			if !strings.Contains(c.Err, sub) {
				t.Errorf("call %d err = %q, want it to contain %q", i, c.Err, sub)
			}
			continue
		}
		if c.Err != "" {
			t.Errorf("call %d unexpected err %q", i, c.Err)
		}
		if got := c.WindowID + "." + c.ActionID; got != w {
			t.Errorf("call %d = %s, want %s", i, got, w)
		}
	}
}
