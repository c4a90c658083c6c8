// Package jsonref is the one JSON Schema check of MCP tools' arguments
// and of --output-schema answers: it checks the $refs of a schema before
// the validator follows them (a validator that follows a $ref chain
// looping back on itself, without descending into the instance, recurses
// without end), resolves the schema and words the validator's errors.
package jsonref

import (
	"net/url"
	"strconv"
	"strings"
)

// inPlace are the keywords whose subschemas apply to the same instance:
// following them does not descend into the arguments.
var inPlace = []string{"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"}

// Bounded reports whether validating against doc must end: every $ref
// points into the document, and no chain of $refs and in-place keywords
// leads from a subschema back to itself.
func Bounded(doc any) bool {
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
