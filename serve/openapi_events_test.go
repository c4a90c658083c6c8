package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// oneOfEach is one event of every type the server sends, with every
// field its encoding can carry filled in.
func oneOfEach() []session.Event {
	code := 1
	params := map[string]json.RawMessage{"command": json.RawMessage(`"go test ./... && echo <ok>"`)}
	call := protocol.Call{ID: "call_1", WindowID: "bash_1", ActionID: "run", Params: params}
	return []session.Event{
		session.Text{Text: "words & <markup>"},
		session.ToolCall{Call: call, Title: "~/w", Desc: windows.Description{Title: "run go test", Kind: "execute", Paths: []string{"/w/a"}}},
		session.Output{CallID: "call_1", TaskID: "task_1", WindowID: "bash_1", Text: "FAIL\n"},
		session.ToolResult{Call: call, Result: protocol.Result{Status: protocol.StatusOK, Text: "exit 1, 0.1s"},
			Detail: windows.Result{Output: "FAIL", Diff: "--- a\n+++ b\n", ExitCode: &code, Failed: true}},
		session.Window{ID: "bash_1", App: "bash", Title: "~/w", Content: "$ go test", Closed: true},
		session.Approval{RequestID: "req_1", WindowID: "bash_1", ActionID: "run", Params: params,
			Reason: "writes outside the workspace", Kind: "command", Subject: "rm -rf /tmp/x", Diff: "-a\n+b\n", Title: "run rm -rf /tmp/x"},
		session.StateEvent{State: session.StateAwaitingApproval},
		session.Steer{Turn: 1, Text: "also this", Step: 2},
		session.Notice{Kind: "approval", Text: "allowed in the terminal", RequestID: "req_1", By: "terminal"},
		session.Turn{Turn: 1, Question: "fix it"},
		session.ModeEvent{Mode: windows.ModePlan, PlanReady: true},
		session.Decision{RequestID: "req_1", Decision: "allow", By: "web page"},
		session.Result{Outcome: session.Interrupted, Error: "interrupted", SessionID: "s", Steps: 2, Duration: time.Second,
			Denials: []session.Denial{{WindowID: "bash_1", ActionID: "run", Reason: "no"}}, Unread: []string{"later"}},
	}
}

// The OpenAPI document describes every event the server sends, field for
// field, and nothing else: each event's one encoding validates against
// the branch of the Event schema titled with its type, every field it
// carries is declared there, and the page handles exactly those types.
func TestOpenAPIDescribesEveryEvent(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				Event struct {
					OneOf []struct {
						Title      string                     `json:"title"`
						Properties map[string]json.RawMessage `json:"properties"`
					} `json:"oneOf"`
				} `json:"Event"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapiDoc, &doc); err != nil {
		t.Fatal(err)
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(openapiDoc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	const url = "aci:///openapi.json"
	if err := c.AddResource(url, raw); err != nil {
		t.Fatal(err)
	}
	branch := map[string]int{}
	for i, b := range doc.Components.Schemas.Event.OneOf {
		branch[b.Title] = i
	}
	var sent []string
	for _, ev := range oneOfEach() {
		typ := ev.Type()
		sent = append(sent, typ)
		i, ok := branch[typ]
		if !ok {
			t.Errorf("the document has no %s event", typ)
			continue
		}
		data, err := session.Encode(ev)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		sch, err := c.Compile(fmt.Sprintf("%s#/components/schemas/Event/oneOf/%d", url, i))
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s %s does not match the document: %v", typ, data, err)
		}
		var fields map[string]json.RawMessage
		json.Unmarshal(data, &fields)
		for k := range fields {
			if _, ok := doc.Components.Schemas.Event.OneOf[i].Properties[k]; !ok {
				t.Errorf("%s carries %q, which the document does not describe", typ, k)
			}
		}
	}
	var described []string
	for typ := range branch {
		described = append(described, typ)
	}
	slices.Sort(sent)
	slices.Sort(described)
	if !slices.Equal(sent, described) {
		t.Errorf("the document describes %v, the server sends %v", described, sent)
	}
	// The page reads exactly these.
	js, err := os.ReadFile("web/static/assets/api.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`EVENT_TYPES = \[([^\]]*)\]`).FindSubmatch(js)
	if m == nil {
		t.Fatal("api.js has no EVENT_TYPES")
	}
	var page []string
	for _, s := range strings.Split(string(m[1]), ",") {
		page = append(page, strings.Trim(strings.TrimSpace(s), "'"))
	}
	slices.Sort(page)
	if !slices.Equal(page, sent) {
		t.Errorf("the page handles %v, the server sends %v", page, sent)
	}
}
