package mcp

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// compiled caches the resolved input schema of each tool seen (tool lists
// are replaced whole, so a tool's pointer names one schema).
var compiled sync.Map // *sdk.Tool -> *jsonschema.Resolved (nil: not checkable)

// CheckArgs validates arguments against the tool's whole input schema
// (allowed values, ranges, nested objects), so a bad call is refused before
// anyone is asked about it. A schema aci cannot read (a remote $ref, an
// unknown draft) is left to the server, which checks its input too, and so
// is one whose $refs could loop without descending into the arguments: the
// validator would recurse without end.
//
// The validator is the MCP SDK's own (github.com/google/jsonschema-go),
// which costs nothing at start; a validator that compiles its meta-schemas
// at package initialisation would slow every run of aci, most of which open
// no MCP server.
func CheckArgs(t *sdk.Tool, args map[string]any) error {
	var rs *jsonschema.Resolved
	if v, ok := compiled.Load(t); ok {
		rs, _ = v.(*jsonschema.Resolved)
	} else {
		rs = compile(t.InputSchema)
		compiled.Store(t, rs)
	}
	if rs == nil {
		return nil
	}
	// Validate plain JSON values, as the server will receive them.
	data, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("arguments are not JSON: %w", err)
	}
	var inst any
	if err := json.Unmarshal(data, &inst); err != nil {
		return fmt.Errorf("arguments are not JSON: %w", err)
	}
	if err := rs.Validate(inst); err != nil {
		return fmt.Errorf("arguments do not match the input schema of %s: %s", t.Name, describe(err))
	}
	return nil
}

// describe is the validator's message without the frames it wraps around
// the cause: "validating root: validating /properties/city: enum: ..."
// reads "at /city: enum: ...".
func describe(err error) string {
	msg := err.Error()
	loc := ""
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		at, after, ok := strings.Cut(rest, ": ")
		if !ok {
			break
		}
		if at != "root" {
			loc = at
		}
		msg = after
	}
	if loc == "" {
		return msg
	}
	loc = strings.ReplaceAll(loc, "/properties/", "/")
	return "at " + loc + ": " + msg
}

func compile(schema any) *jsonschema.Resolved {
	data, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil || !refsBounded(doc) {
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	return rs
}

// inPlace are the keywords whose subschemas apply to the same instance:
// following them does not descend into the arguments.
var inPlace = []string{"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"}

// refsBounded reports whether validating against doc must end: every $ref
// points into the document, and no chain of $refs and in-place keywords
// leads from a subschema back to itself.
func refsBounded(doc any) bool {
	state := map[string]int{} // 1: on the path being followed, 2: done
	var visit func(path string, node any) bool
	visit = func(path string, node any) bool {
		switch state[path] {
		case 1:
			return false
		case 2:
			return true
		}
		state[path] = 1
		m, _ := node.(map[string]any)
		next, ok := inPlaceTargets(path, m)
		if !ok {
			return false
		}
		for _, p := range next {
			target, ok := pointer(doc, p)
			if !ok || !visit(p, target) {
				return false
			}
		}
		state[path] = 2
		return true
	}
	ok := true
	walkMaps(doc, "", func(path string, m map[string]any) {
		if _, id := m["$id"]; id && path != "" {
			ok = false // refs relative to a nested base: not followed here
		}
		if ok && !visit(path, m) {
			ok = false
		}
	})
	return ok
}

// inPlaceTargets are the paths m's in-place keywords and $ref lead to;
// false for a reference that does not point into the document.
func inPlaceTargets(path string, m map[string]any) ([]string, bool) {
	var out []string
	if _, ok := m["$dynamicRef"]; ok {
		return nil, false
	}
	if _, ok := m["$recursiveRef"]; ok {
		return nil, false
	}
	if v, ok := m["$ref"]; ok {
		ref, _ := v.(string)
		frag, ok := strings.CutPrefix(ref, "#")
		if !ok || (frag != "" && !strings.HasPrefix(frag, "/")) {
			return nil, false
		}
		if unesc, err := url.PathUnescape(frag); err == nil {
			frag = unesc
		}
		out = append(out, frag)
	}
	for _, k := range inPlace {
		switch v := m[k].(type) {
		case []any:
			for i := range v {
				out = append(out, path+"/"+k+"/"+strconv.Itoa(i))
			}
		case map[string]any:
			if k == "dependentSchemas" || k == "dependencies" {
				for name := range v {
					out = append(out, path+"/"+k+"/"+escape(name))
				}
			} else {
				out = append(out, path+"/"+k)
			}
		}
	}
	return out, true
}

// pointer resolves a JSON pointer ("" is the whole document).
func pointer(doc any, p string) (any, bool) {
	if p == "" {
		return doc, true
	}
	cur := doc
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// walkMaps calls f for every object in v, with its JSON pointer.
func walkMaps(v any, path string, f func(string, map[string]any)) {
	switch c := v.(type) {
	case map[string]any:
		f(path, c)
		for k, e := range c {
			walkMaps(e, path+"/"+escape(k), f)
		}
	case []any:
		for i, e := range c {
			walkMaps(e, path+"/"+strconv.Itoa(i), f)
		}
	}
}
