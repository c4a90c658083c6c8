// Package protocol reads the model's <tool_call> blocks and writes the
// <tool_results> message that answers them. It is the wire contract between
// the model and aci (docs/protocol.md §4) and depends on nothing else in aci.
package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

const (
	openTag  = "<tool_call>"
	closeTag = "</tool_call>"
)

// Call is one action the model asked for. When Err is set the call could not
// be understood and must be answered with an error result carrying Err.
type Call struct {
	ID       string
	WindowID string
	ActionID string
	Params   map[string]json.RawMessage
	Err      string
}

// Parsed is a model reply split into its prose and its calls.
type Parsed struct {
	Text  string // the reply without its <tool_call> blocks, trimmed
	Calls []Call
}

// HasCalls reports whether the reply asked for any action; a reply without
// one is the turn's answer.
func (p Parsed) HasCalls() bool { return len(p.Calls) > 0 }

// Parse extracts every <tool_call> block of reply, in order. turn numbers the
// model's replies in the session from 1 and goes into the call ids. Parse
// never fails: what cannot be understood becomes a Call with Err set, so the
// model is told exactly what was wrong and the turn goes on.
func Parse(reply string, turn int) Parsed {
	var out Parsed
	var text strings.Builder
	rest := reply
	block := 0
	for {
		i := strings.Index(rest, openTag)
		if i < 0 {
			text.WriteString(rest)
			break
		}
		text.WriteString(rest[:i])
		rest = rest[i+len(openTag):]
		block++
		var body string
		if j := strings.Index(rest, closeTag); j >= 0 {
			body, rest = rest[:j], rest[j+len(closeTag):]
		} else {
			// Models sometimes stop before the closing tag; the intent is clear.
			body, rest = rest, ""
		}
		out.Calls = append(out.Calls, parseBlock(body, block)...)
	}
	if block == 0 {
		if calls, ok := bareCalls(reply); ok {
			out.Calls = calls
			text.Reset()
		}
	}
	for i := range out.Calls {
		out.Calls[i].ID = fmt.Sprintf("call_%d_%d", turn, i+1)
	}
	out.Text = strings.TrimSpace(text.String())
	return out
}

// parseBlock reads the JSON values of one block: {"calls":[...]}, a single
// call object, or an array of calls, possibly inside a code fence.
func parseBlock(body string, block int) []Call {
	if isFunctionBlock(body) {
		return functionCalls(body, block)
	}
	src := stripFence(body)
	if strings.TrimSpace(src) == "" {
		return []Call{{Err: fmt.Sprintf("<tool_call> block %d is empty: expected {\"calls\":[{\"window_id\":...,\"action_id\":...,\"params\":{...}}]}", block)}}
	}
	dec := json.NewDecoder(strings.NewReader(src))
	var calls []Call
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return append(calls, Call{Err: fmt.Sprintf("malformed JSON in <tool_call> block %d %s", block, describeJSONError(src, dec, err))})
		}
		calls = append(calls, callsFromValue(v, block)...)
	}
	return calls
}

func describeJSONError(src string, dec *json.Decoder, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("at offset %d (near %q): %v", syn.Offset, near(src, int(syn.Offset)), syn)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Sprintf("at offset %d: unexpected end of JSON (unbalanced braces or an unterminated string)", dec.InputOffset())
	}
	return fmt.Sprintf("at offset %d: %v", dec.InputOffset(), err)
}

// near returns a short excerpt of src around offset, to point at the fault.
func near(src string, offset int) string {
	start, end := max(offset-15, 0), min(offset+10, len(src))
	if start > end {
		start = end
	}
	return src[start:end]
}

func callsFromValue(v json.RawMessage, block int) []Call {
	trimmed := bytes.TrimSpace(v)
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		return callsFromArray(trimmed, block, "")
	case len(trimmed) > 0 && trimmed[0] == '{':
	default:
		return []Call{{Err: fmt.Sprintf("<tool_call> block %d holds %s, expected an object {\"calls\":[...]}", block, kindOf(trimmed))}}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return []Call{{Err: fmt.Sprintf("<tool_call> block %d: %v", block, err)}}
	}
	if raw, ok := obj["calls"]; ok {
		return callsFromArray(raw, block, "\"calls\" ")
	}
	return []Call{callFromObject(obj, block, 1)}
}

func callsFromArray(raw json.RawMessage, block int, what string) []Call {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return []Call{{Err: fmt.Sprintf("<tool_call> block %d: %smust be an array of call objects, got %s", block, what, kindOf(bytes.TrimSpace(raw)))}}
	}
	if len(items) == 0 {
		return []Call{{Err: fmt.Sprintf("<tool_call> block %d: %sarray is empty", block, what)}}
	}
	calls := make([]Call, 0, len(items))
	for i, item := range items {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(item, &obj); err != nil || obj == nil {
			calls = append(calls, Call{Err: fmt.Sprintf("<tool_call> block %d, call %d: expected an object with window_id, action_id and params, got %s", block, i+1, kindOf(bytes.TrimSpace(item)))})
			continue
		}
		calls = append(calls, callFromObject(obj, block, i+1))
	}
	return calls
}

func callFromObject(obj map[string]json.RawMessage, block, n int) Call {
	where := fmt.Sprintf("<tool_call> block %d, call %d", block, n)
	if isNamedCall(obj) {
		return namedCall(obj, where)
	}
	var c Call
	var problems []string
	c.WindowID, problems = stringField(obj, "window_id", problems)
	c.ActionID, problems = stringField(obj, "action_id", problems)
	if raw, ok := obj["params"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &c.Params); err != nil || c.Params == nil {
			problems = append(problems, fmt.Sprintf("\"params\" must be an object, got %s", kindOf(bytes.TrimSpace(raw))))
		}
	}
	if c.Params == nil {
		c.Params = map[string]json.RawMessage{}
	}
	var unknown []string
	for k := range obj {
		switch k {
		case "window_id", "action_id", "params", "id":
		default:
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		problems = append(problems, "unknown field "+strings.Join(unknown, ", ")+" (a call has window_id, action_id and params; action parameters go inside params)")
	}
	if len(problems) > 0 {
		c.Err = where + ": " + strings.Join(problems, "; ")
	}
	return c
}

func stringField(obj map[string]json.RawMessage, name string, problems []string) (string, []string) {
	raw, ok := obj[name]
	if !ok || isNull(raw) {
		return "", append(problems, fmt.Sprintf("missing %q", name))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", append(problems, fmt.Sprintf("%q must be a string, got %s", name, kindOf(bytes.TrimSpace(raw))))
	}
	if s == "" {
		return "", append(problems, fmt.Sprintf("%q is empty", name))
	}
	return s, problems
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// kindOf names a JSON value's type for error messages.
func kindOf(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// stripFence removes a Markdown code fence (```json ... ```) around the JSON.
func stripFence(body string) string {
	s := strings.TrimSpace(body)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = s[3:]
	if nl := strings.IndexByte(s, '\n'); nl >= 0 {
		s = s[nl+1:] // drop the info string ("json")
	} else {
		s = strings.TrimPrefix(s, "json")
	}
	s = strings.TrimSpace(s)
	return strings.TrimSpace(strings.TrimSuffix(s, "```"))
}
