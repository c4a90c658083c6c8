package jsonref

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// ErrUnbounded is Resolve's answer for a schema whose $refs leave the
// document or loop back on themselves without descending.
var ErrUnbounded = errors.New("$refs must point inside the document and must not loop back on themselves without descending")

// Resolve readies the JSON Schema document data for validation with
// github.com/google/jsonschema-go: only a document that Bounded finds
// safe to follow, and nothing is fetched for it.
func Resolve(data []byte) (*jsonschema.Resolved, error) {
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if !Bounded(doc) {
		return nil, ErrUnbounded
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	return s.Resolve(&jsonschema.ResolveOptions{Loader: noRemote})
}

// noRemote refuses every $ref outside the document: a schema must not
// make aci fetch anything.
func noRemote(uri *url.URL) (*jsonschema.Schema, error) {
	return nil, fmt.Errorf("$ref %s is outside the file: aci fetches nothing for a schema", uri)
}

// Describe is the validator's message on one line without its frames:
// "validating root: validating /properties/n: type: ..." reads
// "at /n: type: ...".
func Describe(err error) string {
	var parts []string
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimSuffix(strings.TrimSpace(line), ":")
		if i := strings.Index(line, " [<anonymous schema>"); i >= 0 {
			if j := strings.Index(line[i:], "]"); j >= 0 {
				line = line[:i] + line[i+j+1:]
			}
		}
		if line != "" {
			parts = append(parts, describeLine(line))
		}
	}
	return strings.Join(parts, "; ")
}

func describeLine(msg string) string {
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
	msg = strings.TrimPrefix(msg, "jsonschema: ")
	if loc == "" {
		return msg
	}
	return "at " + strings.ReplaceAll(loc, "/properties/", "/") + ": " + msg
}
