package hooks

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Web calls reach hooks under Claude Code's names, so a hook written for
// WebFetch or WebSearch sees aci's too.
func TestDescribeWebTools(t *testing.T) {
	tests := []struct {
		window, action, params string
		name                   string
		input                  map[string]any
	}{
		{"launcher", "open", `{"app":"web_fetch","target":"https://go.dev"}`, "WebFetch", map[string]any{"url": "https://go.dev"}},
		{"web_fetch_2", "fetch", `{"url":"https://go.dev/doc"}`, "WebFetch", map[string]any{"url": "https://go.dev/doc"}},
		{"launcher", "open", `{"app":"search","target":"go context"}`, "WebSearch", map[string]any{"query": "go context"}},
		{"search_1", "search", `{"query":"go modules"}`, "WebSearch", map[string]any{"query": "go modules"}},
		{"search_1", "open", `{"n":2}`, "search.open", map[string]any{"n": float64(2)}},
	}
	for _, tt := range tests {
		var p map[string]json.RawMessage
		json.Unmarshal([]byte(tt.params), &p)
		got := Describe(tt.window, tt.action, "", "/w", p)
		if got.Name != tt.name || !reflect.DeepEqual(got.Input, tt.input) {
			t.Errorf("%s.%s: %s %v, want %s %v", tt.window, tt.action, got.Name, got.Input, tt.name, tt.input)
		}
	}
}
