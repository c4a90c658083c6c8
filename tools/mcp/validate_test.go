package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckArgs(t *testing.T) {
	var schema map[string]any
	json.Unmarshal([]byte(`{"type":"object","properties":{
		"city":{"type":"string","enum":["Paris","Rome"]},
		"n":{"type":"integer","minimum":1,"maximum":10},
		"opts":{"type":"object","properties":{"deep":{"type":"boolean"}},"required":["deep"]}},
		"required":["city"]}`), &schema)
	tool := &Tool{Name: "weather", InputSchema: schema}
	tests := []struct {
		name, args, wantErr string
	}{
		{name: "ok", args: `{"city":"Paris","n":3,"opts":{"deep":true}}`},
		{name: "enum", args: `{"city":"Oslo"}`, wantErr: "arguments do not match the input schema of weather: at /city: enum: Oslo does not equal any of: [Paris Rome]"},
		{name: "range", args: `{"city":"Rome","n":11}`, wantErr: "maximum"},
		{name: "nested", args: `{"city":"Rome","opts":{}}`, wantErr: "deep"},
		{name: "json.Number and raw JSON", args: `{"city":"Rome","n":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args map[string]any
			d := json.NewDecoder(strings.NewReader(tt.args))
			d.UseNumber()
			if err := d.Decode(&args); err != nil {
				t.Fatal(err)
			}
			if o, ok := args["opts"]; ok {
				raw, _ := json.Marshal(o)
				args["opts"] = json.RawMessage(raw)
			}
			err := CheckArgs(tool, args)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
	// A schema it cannot read is left to the server.
	if err := CheckArgs(&Tool{Name: "odd", InputSchema: map[string]any{"$ref": "http://far.away/schema"}}, map[string]any{"x": 1}); err != nil {
		t.Errorf("unreadable schema: %v", err)
	}
}

// $refs that loop in place would make the validator recurse without end:
// such a schema is left to the server. A recursive schema that descends
// into the arguments at each step is checked.
func TestCheckArgsRefLoops(t *testing.T) {
	for _, tt := range []struct {
		name, schema, args string
		wantErr            bool
	}{
		{"self", `{"$defs":{"x":{"$ref":"#/$defs/x"}},"$ref":"#/$defs/x"}`, `{"a":1}`, false},
		{"through anyOf", `{"$defs":{"x":{"anyOf":[{"$ref":"#/$defs/x"}]}},"$ref":"#/$defs/x"}`, `{"a":1}`, false},
		{"root", `{"allOf":[{"$ref":"#"}]}`, `{}`, false},
		{"nested $id", `{"$defs":{"x":{"$id":"http://x/y","type":"string"}},"properties":{"a":{"$ref":"#/$defs/x"}}}`, `{"a":1}`, false},
		{"linked list", `{"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"},"v":{"type":"integer"}}}},"$ref":"#/$defs/node"}`, `{"next":{"next":{"v":"x"}}}`, true},
		{"escaped pointer", `{"$defs":{"a/b":{"type":"integer"}},"properties":{"n":{"$ref":"#/$defs/a~1b"}}}`, `{"n":"x"}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var schema, args map[string]any
			if err := json.Unmarshal([]byte(tt.schema), &schema); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal([]byte(tt.args), &args)
			err := CheckArgs(&Tool{Name: "t", InputSchema: schema}, args)
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, want an error: %v", err, tt.wantErr)
			}
		})
	}
}

// FuzzToolSchema feeds servers' schemas of any shape: reading parameters
// and checking arguments never panic.
func FuzzToolSchema(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":["string","null"],"enum":["x"]}},"required":["a"]}`, `{"a":"x"}`)
	f.Add(`{"properties":{"n":{"type":"array","items":{"type":"integer"},"default":[1]}}}`, `{"n":[1,2]}`)
	f.Add(`{"$defs":{"x":{"$ref":"#/$defs/x"}},"$ref":"#/$defs/x"}`, `{}`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		var s any
		if json.Unmarshal([]byte(schema), &s) != nil {
			return
		}
		var a map[string]any
		if json.Unmarshal([]byte(args), &a) != nil {
			return
		}
		tool := &Tool{Name: "t", InputSchema: s}
		ToolParams(tool)
		_ = CheckArgs(tool, a)
	})
}

func TestUsableName(t *testing.T) {
	for name, want := range map[string]bool{
		"echo": true, "get-sum": true, "github.search_issues": true, "fs/read": true,
		"": false, "a b": false, "x</window>": false, "line\nbreak": false, "é": false, strings.Repeat("a", 129): false,
	} {
		if got := UsableName(name); got != want {
			t.Errorf("UsableName(%q) = %v, want %v", name, got, want)
		}
	}
}
