package serve

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The OpenAPI document and the mux describe the same API: every route is
// in the document with its method, and every operation of the document
// is a route.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapiDoc, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi %q, want 3.1", doc.OpenAPI)
	}
	var fromDoc []string
	for path, ops := range doc.Paths {
		for method := range ops {
			if method == "parameters" || method == "summary" || method == "description" {
				continue
			}
			fromDoc = append(fromDoc, strings.ToUpper(method)+" "+path)
		}
	}
	var fromMux []string
	s := &Server{}
	for _, rt := range s.routes() {
		fromMux = append(fromMux, rt.method+" "+strings.TrimSuffix(rt.pattern, "{$}"))
	}
	slices.Sort(fromDoc)
	slices.Sort(fromMux)
	if !slices.Equal(fromDoc, fromMux) {
		t.Errorf("the document has\n%s\nthe mux has\n%s", strings.Join(fromDoc, "\n"), strings.Join(fromMux, "\n"))
	}
	// Every reference points at something defined.
	var all map[string]any
	json.Unmarshal(openapiDoc, &all)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				node := any(all)
				for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
					m, _ := node.(map[string]any)
					node = m[part]
				}
				if node == nil {
					t.Errorf("dangling $ref %s", ref)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(all)
}

// The document served is the one embedded.
func TestOpenAPIServed(t *testing.T) {
	r := newRig(t, nil)
	body := r.must(200, "GET", "/api/openapi.json", nil, nil)
	if body != string(openapiDoc) {
		t.Error("GET /api/openapi.json differs from openapi.json")
	}
}
