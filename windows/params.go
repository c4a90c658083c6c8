package windows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ParamType is the JSON type a parameter takes.
type ParamType string

const (
	String  ParamType = "string"
	Integer ParamType = "integer"
	Boolean ParamType = "boolean"
	// Number, Object and Array are the other JSON Schema types (MCP tools
	// take them); Any takes any JSON value, for schemas that allow several.
	// Objects, arrays and any values are kept as raw JSON.
	Number ParamType = "number"
	Object ParamType = "object"
	Array  ParamType = "array"
	Any    ParamType = "any"
)

// Param declares one parameter of an action.
type Param struct {
	Name     string
	Type     ParamType
	Required bool
	Desc     string
}

// Args are an action's parameters after validation.
type Args struct{ values map[string]any }

// Has reports whether the parameter was given.
func (a Args) Has(name string) bool { _, ok := a.values[name]; return ok }

// String returns a string parameter, or "".
func (a Args) String(name string) string { s, _ := a.values[name].(string); return s }

// Int returns an integer parameter, or def when it was not given.
func (a Args) Int(name string, def int) int {
	if v, ok := a.values[name].(int); ok {
		return v
	}
	return def
}

// Bool returns a boolean parameter, or false.
func (a Args) Bool(name string) bool { b, _ := a.values[name].(bool); return b }

// Value returns a parameter as decoded: string, int, bool, json.Number or
// json.RawMessage (objects, arrays, any); nil when it was not given.
func (a Args) Value(name string) any { return a.values[name] }

// Map returns every given parameter by name, ready to marshal as JSON.
func (a Args) Map() map[string]any {
	out := make(map[string]any, len(a.values))
	for k, v := range a.values {
		out[k] = v
	}
	return out
}

// Validate checks raw parameters against an action's declaration: unknown,
// missing and mistyped parameters are errors that name the parameter.
func Validate(action Action, raw map[string]json.RawMessage) (Args, error) {
	known := make(map[string]Param, len(action.Params))
	for _, p := range action.Params {
		known[p.Name] = p
	}
	var unknown []string
	for name := range raw {
		if _, ok := known[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Args{}, fmt.Errorf("unknown parameter %q for %s; it takes %s", unknown[0], action.ID, paramList(action))
	}
	values := make(map[string]any, len(raw))
	for _, p := range action.Params {
		v, ok := raw[p.Name]
		if !ok || string(bytes.TrimSpace(v)) == "null" {
			if p.Required {
				return Args{}, fmt.Errorf("missing required parameter %q (%s) for %s", p.Name, p.Type, action.ID)
			}
			continue
		}
		val, err := decodeParam(p, v)
		if err != nil {
			return Args{}, err
		}
		values[p.Name] = val
	}
	return Args{values: values}, nil
}

// numberOf reads a JSON number, or a string holding one: models often
// quote numbers, and "12" is still clearly 12. The text is not checked
// to be a number here.
func numberOf(raw json.RawMessage) (json.Number, bool) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return json.Number(strings.TrimSpace(s)), true
}

func decodeParam(p Param, raw json.RawMessage) (any, error) {
	wrong := func() error {
		return fmt.Errorf("parameter %q must be %s %s, got %s", p.Name, article(p.Type), p.Type, excerpt(raw))
	}
	switch p.Type {
	case String:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, wrong()
		}
		return s, nil
	case Integer:
		n, ok := numberOf(raw)
		if !ok {
			return nil, wrong()
		}
		i, err := strconv.Atoi(string(n))
		if err != nil {
			f, ferr := n.Float64()
			if ferr != nil || f != float64(int(f)) {
				return nil, wrong()
			}
			i = int(f)
		}
		return i, nil
	case Boolean:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return nil, wrong()
			}
			switch s {
			case "true":
				return true, nil
			case "false":
				return false, nil
			}
			return nil, wrong()
		}
		return b, nil
	case Number:
		n, ok := numberOf(raw)
		if !ok {
			return nil, wrong()
		}
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, wrong()
		}
		if !json.Valid([]byte(n)) {
			// A quoted "00" or "+1" parses, but must reach JSON as 0 and 1.
			n = json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
		return n, nil
	case Object, Array:
		open := byte('{')
		if p.Type == Array {
			open = '['
		}
		v := bytes.TrimSpace(raw)
		if len(v) == 0 || v[0] != open {
			// Models sometimes send the value as a JSON string.
			var s string
			if json.Unmarshal(v, &s) != nil {
				return nil, wrong()
			}
			v = bytes.TrimSpace([]byte(s))
			if len(v) == 0 || v[0] != open || !json.Valid(v) {
				return nil, wrong()
			}
		}
		return json.RawMessage(v), nil
	case Any:
		return json.RawMessage(bytes.TrimSpace(raw)), nil
	}
	return nil, fmt.Errorf("parameter %q has unsupported type %s", p.Name, p.Type)
}

func article(t ParamType) string {
	if t == Integer || t == Object || t == Array {
		return "an"
	}
	return "a"
}

func excerpt(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

func paramList(a Action) string {
	if len(a.Params) == 0 {
		return "no parameters"
	}
	names := make([]string, len(a.Params))
	for i, p := range a.Params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}
