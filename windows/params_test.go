package windows

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	action := Action{ID: "run", Params: []Param{
		{Name: "command", Type: String, Required: true},
		{Name: "timeout_s", Type: Integer},
		{Name: "all", Type: Boolean},
	}}
	tests := []struct {
		name    string
		raw     string
		wantErr string
		check   func(Args) bool
	}{
		{name: "ok", raw: `{"command":"ls","timeout_s":5,"all":true}`, check: func(a Args) bool {
			return a.String("command") == "ls" && a.Int("timeout_s", 0) == 5 && a.Bool("all")
		}},
		{name: "optional missing", raw: `{"command":"ls"}`, check: func(a Args) bool { return a.Int("timeout_s", 120) == 120 && !a.Has("all") }},
		{name: "quoted integer", raw: `{"command":"ls","timeout_s":"7"}`, check: func(a Args) bool { return a.Int("timeout_s", 0) == 7 }},
		{name: "integral float", raw: `{"command":"ls","timeout_s":7.0}`, check: func(a Args) bool { return a.Int("timeout_s", 0) == 7 }},
		{name: "quoted bool", raw: `{"command":"ls","all":"false"}`, check: func(a Args) bool { return a.Has("all") && !a.Bool("all") }},
		{name: "null is absent", raw: `{"command":"ls","timeout_s":null}`, check: func(a Args) bool { return !a.Has("timeout_s") }},
		{name: "missing required", raw: `{}`, wantErr: `missing required parameter "command"`},
		{name: "null required", raw: `{"command":null}`, wantErr: `missing required parameter "command"`},
		{name: "unknown", raw: `{"command":"ls","cwd":"/"}`, wantErr: `unknown parameter "cwd" for run; it takes command, timeout_s, all`},
		{name: "wrong string", raw: `{"command":5}`, wantErr: `parameter "command" must be a string, got 5`},
		{name: "wrong integer", raw: `{"command":"ls","timeout_s":"soon"}`, wantErr: `parameter "timeout_s" must be an integer`},
		{name: "fractional integer", raw: `{"command":"ls","timeout_s":1.5}`, wantErr: `parameter "timeout_s" must be an integer`},
		{name: "wrong bool", raw: `{"command":"ls","all":1}`, wantErr: `parameter "all" must be a boolean`},
		{name: "object for string", raw: `{"command":{"a":1}}`, wantErr: `must be a string, got {"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, ok := validateJSON(t, action, tt.raw, tt.wantErr)
			if !ok {
				return
			}
			if !tt.check(args) {
				t.Errorf("args wrong: %+v", args.values)
			}
		})
	}
}

func TestValidateJSONTypes(t *testing.T) {
	action := Action{ID: "call", Params: []Param{
		{Name: "n", Type: Number},
		{Name: "o", Type: Object},
		{Name: "a", Type: Array},
		{Name: "x", Type: Any},
	}}
	tests := []struct {
		name, raw, wantErr string
		want               map[string]string // parameter -> its JSON
	}{
		{name: "all kinds", raw: `{"n":1.5,"o":{"k":[1]},"a":[1,"b"],"x":null}`, want: map[string]string{"n": "1.5", "o": `{"k":[1]}`, "a": `[1,"b"]`}},
		{name: "quoted number", raw: `{"n":"2e3"}`, want: map[string]string{"n": "2e3"}},
		{name: "stringified object", raw: `{"o":"{\"k\":1}"}`, want: map[string]string{"o": `{"k":1}`}},
		{name: "any takes a string", raw: `{"x":"s"}`, want: map[string]string{"x": `"s"`}},
		{name: "any takes an object", raw: `{"x":{"a":1}}`, want: map[string]string{"x": `{"a":1}`}},
		{name: "quoted number made JSON", raw: `{"n":"+01"}`, want: map[string]string{"n": "1"}},
		{name: "bad number", raw: `{"n":"many"}`, wantErr: `parameter "n" must be a number`},
		{name: "not finite", raw: `{"n":"NaN"}`, wantErr: `parameter "n" must be a number`},
		{name: "array for object", raw: `{"o":[1]}`, wantErr: `parameter "o" must be an object, got [1]`},
		{name: "object for array", raw: `{"a":{}}`, wantErr: `parameter "a" must be an array`},
		{name: "string not an array", raw: `{"a":"1,2"}`, wantErr: `parameter "a" must be an array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, ok := validateJSON(t, action, tt.raw, tt.wantErr)
			if !ok {
				return
			}
			got := args.Map()
			if len(got) != len(tt.want) {
				t.Fatalf("args %v, want %v", got, tt.want)
			}
			for k, want := range tt.want {
				data, err := json.Marshal(got[k])
				if err != nil || string(data) != want {
					t.Errorf("%s = %s (%v), want %s", k, data, err, want)
				}
			}
		})
	}
}

func FuzzValidate(f *testing.F) {
	f.Add(`{"command":"ls","timeout_s":5}`)
	f.Add(`{"timeout_s":"1e3","all":"true"}`)
	f.Add(`{"command":"x","n":"1.5","o":"{\"a\":1}","a":[1],"x":{}}`)
	action := Action{ID: "run", Params: []Param{
		{Name: "command", Type: String, Required: true},
		{Name: "timeout_s", Type: Integer},
		{Name: "all", Type: Boolean},
		{Name: "n", Type: Number},
		{Name: "o", Type: Object},
		{Name: "a", Type: Array},
		{Name: "x", Type: Any},
	}}
	f.Fuzz(func(t *testing.T, s string) {
		var raw map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &raw) != nil {
			return
		}
		args, err := Validate(action, raw)
		if err != nil {
			return
		}
		if !args.Has("command") {
			t.Fatal("validated without the required parameter")
		}
		// Whatever validated marshals as JSON again (it goes to MCP servers).
		if _, err := json.Marshal(args.Map()); err != nil {
			t.Fatalf("validated arguments do not marshal: %v", err)
		}
	})
}

// validateJSON validates the arguments raw (a JSON object) for action.
// With wantErr it checks the error says it and reports false; else a
// valid result comes back with true.
func validateJSON(t *testing.T, action Action, raw, wantErr string) (Args, bool) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	args, err := Validate(action, m)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want %q", err, wantErr)
		}
		return args, false
	}
	if err != nil {
		t.Fatalf("unexpected error %v", err)
	}
	return args, true
}
