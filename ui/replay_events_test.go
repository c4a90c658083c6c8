package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aci-dev/aci/session"
)

// A resumed session's last turns are drawn from its events as they were
// live: the words, each action and how it ended, the answer to a
// question, the messages added, the figures and the interrupted mark.
func TestReplayDrawsTheStoredEvents(t *testing.T) {
	var out bytes.Buffer
	r := &REPL{out: newRenderer(&out, false, false)}
	var s session.Past
	s.ID = "sid"
	add := func(typ, data string) {
		if !json.Valid([]byte(data)) {
			t.Fatalf("bad event %s", data)
		}
		ev, err := session.Decode(typ, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		s.Events = append(s.Events, ev)
	}
	for i := range 12 {
		add("turn", fmt.Sprintf(`{"type":"turn","turn":%d,"question":"question %d"}`, i+1, i))
		add("text", `{"type":"text","text":"Checking the build."}`)
		add("tool_call", `{"type":"tool_call","call_id":"c1","window_id":"bash_1","action_id":"run","params":{"command":"go build"},"title":"run go build","kind":"execute"}`)
		add("approval", `{"type":"approval","request_id":"req_1","window_id":"bash_1","action_id":"run","params":{},"reason":"r","kind":"command","subject":"go build"}`)
		add("decision", `{"type":"decision","request_id":"req_1","decision":"allow","by":"web page"}`)
		add("tool_result", `{"type":"tool_result","call_id":"c1","status":"ok","text":"exit 2, 1.2s","output":"main.go:3: undefined: x","exit_code":2}`)
		add("steer", fmt.Sprintf(`{"type":"steer","turn":%d,"text":"keep it short","step":2}`, i+1))
		add("text", fmt.Sprintf(`{"type":"text","text":"answer %d"}`, i))
		if i == 11 {
			add("result", `{"type":"result","is_error":true,"result":"","error":"interrupted","session_id":"sid","num_steps":2,"duration_ms":1500,"usage":{"prompt_tokens":1000,"completion_tokens":20,"cached_tokens":0},"total_cost_usd":null,"denials":[]}`)
		} else {
			add("result", fmt.Sprintf(`{"type":"result","is_error":false,"result":"answer %d","session_id":"sid","num_steps":2,"duration_ms":1500,"usage":{"prompt_tokens":1000,"completion_tokens":20,"cached_tokens":0},"total_cost_usd":null,"denials":[]}`, i))
		}
	}
	r.replay(s)
	got := out.String()
	for _, want := range []string{"── resumed session sid ──", "… 2 earlier turns not shown", "› question 2\n", "Checking the build.",
		"▸ run go build", "exit 2", "allowed (web page)", "› keep it short  ↳ added to the turn", "answer 2", "⊘ interrupted", "2 steps", "── now ──"} {
		if !strings.Contains(got, want) {
			t.Errorf("replay lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "question 1\n") {
		t.Errorf("an early turn is shown:\n%s", got)
	}
}
