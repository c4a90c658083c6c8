package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Param is one top-level property of a tool's input schema.
type Param struct {
	Name     string
	Type     string // a JSON Schema type, or "" when the schema allows several
	Required bool
	Desc     string // description, allowed values, default
}

// ToolParams reads a tool's input schema: its properties, required first,
// then by name (a deterministic order: the rendering must not vary).
func ToolParams(t *Tool) []Param {
	schema := asMap(t.InputSchema)
	props := asMap(schema["properties"])
	required := map[string]bool{}
	if list, ok := schema["required"].([]any); ok {
		for _, r := range list {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	out := make([]Param, 0, len(props))
	for name, raw := range props {
		prop := asMap(raw)
		out = append(out, Param{Name: name, Type: schemaType(prop), Required: required[name], Desc: propDesc(prop)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Required != out[j].Required {
			return out[i].Required
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// asMap turns a decoded or typed schema into a plain map.
func asMap(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case nil:
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

// schemaType is the property's single type; "" when it takes several or
// says none (the value is then passed on as given).
func schemaType(prop map[string]any) string {
	switch t := prop["type"].(type) {
	case string:
		return t
	case []any:
		var kinds []string
		for _, k := range t {
			if s, ok := k.(string); ok && s != "null" {
				kinds = append(kinds, s)
			}
		}
		if len(kinds) == 1 {
			return kinds[0]
		}
	}
	if _, ok := prop["enum"]; ok {
		return enumType(prop["enum"])
	}
	return ""
}

func enumType(e any) string {
	list, ok := e.([]any)
	if !ok || len(list) == 0 {
		return ""
	}
	for _, v := range list {
		if _, ok := v.(string); !ok {
			return ""
		}
	}
	return "string"
}

func propDesc(prop map[string]any) string {
	var parts []string
	if d, ok := prop["description"].(string); ok && d != "" {
		parts = append(parts, OneLine(d))
	}
	if e, ok := prop["enum"].([]any); ok {
		vals := make([]string, 0, len(e))
		for _, v := range e {
			vals = append(vals, fmt.Sprint(v))
		}
		parts = append(parts, "one of: "+strings.Join(vals, ", "))
	}
	if d, ok := prop["default"]; ok {
		if data, err := json.Marshal(d); err == nil {
			parts = append(parts, "default "+string(data))
		}
	}
	if prop["type"] == "array" {
		if it := schemaType(asMap(prop["items"])); it != "" {
			parts = append(parts, "items: "+it)
		}
	}
	return strings.Join(parts, "; ")
}

// UsableName reports whether a tool or parameter name can be an action or
// parameter id: 1 to 128 of A-Z a-z 0-9 _ - . / (the MCP naming guidance).
// Other names could break the rendering the model reads, so such tools are
// listed but not offered.
func UsableName(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./", r)
		if !ok {
			return false
		}
	}
	return true
}

// Usable reports whether a tool and all its parameters have usable names.
func Usable(t *Tool) bool {
	if !UsableName(t.Name) {
		return false
	}
	for _, p := range ToolParams(t) {
		if !UsableName(p.Name) {
			return false
		}
	}
	return true
}

// ReadOnly reports whether the tool says it changes nothing.
func ReadOnly(t *Tool) bool { return t.Annotations != nil && t.Annotations.ReadOnlyHint }
