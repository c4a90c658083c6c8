package hooks

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A hook sees a call under the name and input its description gives
// (windows' table of calls), and aci's own call beside them.
func TestNewTool(t *testing.T) {
	p := map[string]json.RawMessage{"command": json.RawMessage(`"go test"`), "timeout_s": json.RawMessage(`5`)}
	got := NewTool("Bash", map[string]any{"command": "go test", "timeout": float64(5000)}, "bash_1", "run", p)
	want := Tool{Name: "Bash", Input: map[string]any{"command": "go test", "timeout": float64(5000)},
		Call: map[string]any{"window": "bash_1", "action": "run", "params": map[string]any{"command": "go test", "timeout_s": float64(5)}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
	// No input: the parameters as written.
	if got := NewTool("search.open", nil, "search_1", "open", map[string]json.RawMessage{"n": json.RawMessage(`2`)}); !reflect.DeepEqual(got.Input, map[string]any{"n": float64(2)}) {
		t.Errorf("%+v", got)
	}
	if r := Response(Tool{Name: "Edit", Input: map[string]any{"file_path": "/w/a.go"}}, "ok", "edited", ""); r["filePath"] != "/w/a.go" || r["success"] != true {
		t.Errorf("%v", r)
	}
}
