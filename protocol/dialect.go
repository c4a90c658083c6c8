package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The dialects open models are trained on (docs/protocol.md §4). Each is read
// into the same Call as the canonical form, and like it never fails: a
// malformed piece becomes a Call whose Err says exactly what was wrong.
//
//	{"name": "WINDOW.ACTION", "arguments": {...}}       Hermes, Qwen, Llama
//	<function=WINDOW.ACTION><parameter=K>v</parameter>  Qwen3-Coder
//
// A reply that is nothing but a call object (bare or in one ```json fence)
// is a call too.

const (
	funcOpen   = "<function="
	funcClose  = "</function>"
	paramOpen  = "<parameter="
	paramClose = "</parameter>"
)

// isNamedCall reports whether obj is the {"name", "arguments"} dialect
// rather than a canonical call.
func isNamedCall(obj map[string]json.RawMessage) bool {
	_, name := obj["name"]
	_, action := obj["action_id"]
	return name && !action
}

// namedCall reads {"name": "WINDOW.ACTION", "arguments": {...}}, or
// {"name": "ACTION", "arguments": {"window_id": ..., ...}}. arguments may
// be an object or a JSON string holding one; "parameters" is a synonym.
func namedCall(obj map[string]json.RawMessage, where string) Call {
	var c Call
	var problems []string
	var name string
	name, problems = stringField(obj, "name", problems)
	argsKey := "arguments"
	_, hasArgs := obj["arguments"]
	_, hasParams := obj["parameters"]
	switch {
	case hasArgs && hasParams:
		problems = append(problems, `both "arguments" and "parameters" given; use "arguments"`)
	case hasParams:
		argsKey = "parameters"
	}
	var prob string
	c.Params, prob = namedArguments(obj[argsKey], argsKey)
	if prob != "" {
		problems = append(problems, prob)
	}
	var window string
	if _, ok := obj["window_id"]; ok {
		window, problems = stringField(obj, "window_id", problems)
	}
	var unknown []string
	for k := range obj {
		switch k {
		case "name", "arguments", "parameters", "window_id", "id", "type":
		default:
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		problems = append(problems, "unknown field "+strings.Join(unknown, ", ")+" (a call has name and arguments; action parameters go inside arguments)")
	}
	if name != "" {
		problems = splitName(&c, name, window, problems)
	}
	if len(problems) > 0 {
		c.Err = where + ": " + strings.Join(problems, "; ")
	}
	return c
}

// namedArguments decodes arguments: an object, a JSON string holding an
// object, or nothing.
func namedArguments(raw json.RawMessage, key string) (map[string]json.RawMessage, string) {
	params := map[string]json.RawMessage{}
	if raw == nil || isNull(raw) {
		return params, ""
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '"' {
		var s string
		if err := json.Unmarshal(trimmed, &s); err != nil {
			return params, fmt.Sprintf("%q: %v", key, err)
		}
		if strings.TrimSpace(s) == "" {
			return params, ""
		}
		trimmed = bytes.TrimSpace([]byte(s))
		if len(trimmed) == 0 || trimmed[0] != '{' {
			return params, fmt.Sprintf("%q is a string that does not hold a JSON object (near %q)", key, near(s, 0))
		}
		if !json.Valid(trimmed) {
			return params, fmt.Sprintf("%q is a string holding malformed JSON (near %q)", key, near(s, 0))
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &m); err != nil || m == nil {
		return params, fmt.Sprintf("%q must be an object, got %s", key, kindOf(trimmed))
	}
	return m, ""
}

// splitName sets the call's window and action from "WINDOW.ACTION", or
// from "ACTION" plus a window_id given beside it or among the parameters.
func splitName(c *Call, name, window string, problems []string) []string {
	if raw, ok := c.Params["window_id"]; ok {
		var w string
		if err := json.Unmarshal(raw, &w); err != nil || w == "" {
			return append(problems, fmt.Sprintf("\"window_id\" among the arguments must be a non-empty string, got %s", kindOf(bytes.TrimSpace(raw))))
		}
		if window != "" && window != w {
			return append(problems, fmt.Sprintf("two windows given: %q and %q among the arguments", window, w))
		}
		window = w
		delete(c.Params, "window_id")
	}
	win, action, dotted := strings.Cut(name, ".")
	switch {
	case !dotted && window == "":
		return append(problems, fmt.Sprintf("\"name\" %q names no window: write \"WINDOW_ID.%s\" (e.g. \"file_1.%s\"), or give \"window_id\" among the arguments", name, name, name))
	case !dotted:
		c.WindowID, c.ActionID = window, name
	case win == "" || action == "":
		return append(problems, fmt.Sprintf("\"name\" %q must be \"WINDOW_ID.ACTION_ID\"", name))
	case window != "" && window != win:
		return append(problems, fmt.Sprintf("two windows given: %q in the name and %q as window_id", win, window))
	default:
		c.WindowID, c.ActionID = win, action
	}
	return problems
}

// isFunctionBlock reports whether a block's body is in the Qwen3-Coder
// <function=...> dialect.
func isFunctionBlock(body string) bool {
	return strings.HasPrefix(strings.TrimSpace(body), funcOpen)
}

// functionCalls reads every <function=NAME>...</function> of a block.
func functionCalls(body string, block int) []Call {
	var calls []Call
	rest := strings.TrimSpace(body)
	for n := 1; rest != ""; n++ {
		where := fmt.Sprintf("<tool_call> block %d, call %d", block, n)
		if !strings.HasPrefix(rest, funcOpen) {
			calls = append(calls, Call{Err: fmt.Sprintf("%s: unexpected text %q between functions (expected <function=WINDOW_ID.ACTION_ID>)", where, near(rest, 0))})
			break
		}
		rest = rest[len(funcOpen):]
		var fn string
		if j := strings.Index(rest, funcClose); j >= 0 {
			fn, rest = rest[:j], strings.TrimSpace(rest[j+len(funcClose):])
		} else {
			// As with </tool_call>: a missing end tag still shows the intent.
			fn, rest = rest, ""
		}
		calls = append(calls, functionCall(fn, where))
	}
	return calls
}

// functionCall reads one function's "NAME>" head and its parameters.
func functionCall(fn, where string) Call {
	c := Call{Params: map[string]json.RawMessage{}}
	name, body, ok := strings.Cut(fn, ">")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, "<\n") {
		c.Err = fmt.Sprintf("%s: malformed <function=...> tag near %q: expected <function=WINDOW_ID.ACTION_ID>", where, near(fn, 0))
		return c
	}
	var problems []string
	rest := strings.TrimSpace(body)
	for rest != "" {
		if !strings.HasPrefix(rest, paramOpen) {
			problems = append(problems, fmt.Sprintf("unexpected text %q (expected <parameter=NAME>value</parameter>)", near(rest, 0)))
			break
		}
		rest = rest[len(paramOpen):]
		key, after, ok := strings.Cut(rest, ">")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, "<\n") {
			problems = append(problems, fmt.Sprintf("malformed <parameter=...> tag near %q", near(rest, 0)))
			break
		}
		value, next := paramValue(after)
		rest = strings.TrimSpace(next)
		if _, dup := c.Params[key]; dup {
			problems = append(problems, fmt.Sprintf("parameter %q given twice", key))
			continue
		}
		c.Params[key] = rawText(value)
	}
	if len(problems) == 0 {
		problems = splitName(&c, name, "", problems)
	}
	if len(problems) > 0 {
		c.Err = where + ": " + strings.Join(problems, "; ")
	}
	return c
}

// paramValue takes a parameter's value up to </parameter> or, when the
// model left that out, up to the next <parameter= (as vLLM's Qwen3-Coder
// parser does). One newline after the opening tag and one before the
// closing tag are layout, not value.
func paramValue(s string) (value, rest string) {
	end, skip := len(s), 0
	if i := strings.Index(s, paramClose); i >= 0 {
		end, skip = i, len(paramClose)
	}
	if i := strings.Index(s, paramOpen); i >= 0 && i < end {
		end, skip = i, 0
	}
	value, rest = s[:end], s[end+skip:]
	value = strings.TrimPrefix(value, "\n")
	value = strings.TrimSuffix(value, "\n")
	return value, rest
}

// rawText encodes a parameter's raw text as a JSON string. Numbers and
// booleans stay strings too: windows accept "12" and "true" for integer and
// boolean parameters, while an edit whose new_text is "1" must stay text.
func rawText(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// bareCalls reads a reply with no <tool_call> block that is nothing but a
// call: a JSON call object (bare or in one ```json fence) or <function=...>
// blocks. ok is false for anything else, which stays the answer.
func bareCalls(reply string) ([]Call, bool) {
	s := strings.TrimSpace(reply)
	if isFunctionBlock(s) && strings.HasSuffix(s, funcClose) {
		return functionCalls(s, 1), true
	}
	if strings.HasPrefix(s, "```") {
		if !strings.HasSuffix(s, "```") || strings.Count(s, "```") != 2 {
			return nil, false
		}
		s = stripFence(s)
	}
	if !strings.HasPrefix(s, "{") || !json.Valid([]byte(s)) {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &obj) != nil || !looksLikeCall(obj) {
		return nil, false
	}
	return callsFromValue(json.RawMessage(s), 1), true
}

// looksLikeCall reports whether a bare JSON object is meant as a call: an
// answer that happens to be JSON has none of these shapes.
func looksLikeCall(obj map[string]json.RawMessage) bool {
	has := func(k string) bool { _, ok := obj[k]; return ok }
	switch {
	case has("calls"):
		var items []json.RawMessage
		return json.Unmarshal(obj["calls"], &items) == nil
	case has("window_id") && has("action_id"):
		return true
	case has("name") && (has("arguments") || has("parameters")):
		return len(obj) <= 4
	}
	return false
}
