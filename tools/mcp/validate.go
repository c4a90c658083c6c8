package mcp

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/aci-dev/aci/tools/jsonref"
)

// compiled caches the resolved input schema of each tool seen (tool lists
// are replaced whole, so a tool's pointer names one schema).
var compiled sync.Map // *Tool -> *jsonschema.Resolved (nil: not checkable)

// CheckArgs validates arguments against the tool's whole input schema
// (allowed values, ranges, nested objects), so a bad call is refused before
// anyone is asked about it. A schema aci cannot read (a remote $ref, an
// unknown draft) is left to the server, which checks its input too, and so
// is one whose $refs could loop without descending into the arguments: the
// validator would recurse without end.
//
// The validator is github.com/google/jsonschema-go (the one the MCP Go SDK
// uses); a validator that compiles its meta-schemas at package
// initialisation would slow every run of aci, most of which open no MCP
// server.
func CheckArgs(t *Tool, args map[string]any) error {
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
		return fmt.Errorf("arguments do not match the input schema of %s: %s", t.Name, jsonref.Describe(err))
	}
	return nil
}

func compile(schema any) *jsonschema.Resolved {
	data, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	rs, err := jsonref.Resolve(data)
	if err != nil {
		return nil
	}
	return rs
}
