package session

import (
	"encoding/json"
	"fmt"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// Encode is an event's one wire encoding: the same bytes on every wire
// (stream-json, json, the server's events, what ACP maps from). The
// event was redacted when it was made (publish); Encode does not redact,
// and escapes no HTML (a shell command's "a && b" stays readable).
func Encode(ev Event) ([]byte, error) {
	m, ok := ev.(json.Marshaler)
	if !ok {
		return nil, fmt.Errorf("event %T has no wire encoding", ev)
	}
	return m.MarshalJSON()
}

// redacted is e with the secrets removed from the fields its makers do
// not redact themselves: a call's parameters, a file change's text, the
// unread messages. Every event passes here once, in publish, before any
// front end or wire sees it.
func (s *Session) redacted(e Event) Event {
	redact := s.f.cfg.Agent.Redact
	switch e := e.(type) {
	case ToolCall:
		e.Call.Params = redactParams(redact, e.Call.Params)
		e.Desc.Title = redact(e.Desc.Title)
		if len(e.Desc.Paths) > 0 {
			p := make([]string, len(e.Desc.Paths))
			for i, x := range e.Desc.Paths {
				p[i] = redact(x)
			}
			e.Desc.Paths = p
		}
		return e
	case Approval:
		if p, ok := e.Params.(map[string]json.RawMessage); ok {
			e.Params = redactParams(redact, p)
		}
		e.Title = redact(e.Title)
		return e
	case ToolResult:
		e.Call.Params = redactParams(redact, e.Call.Params)
		if f := e.Detail.File; f != nil {
			c := *f
			c.Before, c.After = redact(c.Before), redact(c.After)
			e.Detail.File = &c
		}
		return e
	case Result:
		if len(e.Unread) > 0 {
			u := make([]string, len(e.Unread))
			for i, m := range e.Unread {
				u[i] = redact(m)
			}
			e.Unread = u
		}
		return e
	}
	return e
}

// redactParams is a call's parameters with secrets removed from each
// value's JSON text (the redactor's mark is valid inside a JSON string).
func redactParams(redact func(string) string, p map[string]json.RawMessage) map[string]json.RawMessage {
	if p == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(p))
	for k, v := range p {
		r := redact(string(v))
		if r != string(v) && !json.Valid([]byte(r)) {
			b, _ := json.Marshal(r) // a secret cut a value's syntax: keep it as text
			r = string(b)
		}
		out[k] = json.RawMessage(r)
	}
	return out
}

// describe is a call as a person reads it, as its window describes it;
// a call the model wrote wrong says so.
func (s *Session) describe(c protocol.Call) windows.Description {
	if c.Err != "" || c.WindowID == "" {
		return ToolCall{Call: c}.Described("")
	}
	d := s.wm.Describe(c.WindowID, c.ActionID, c.Params)
	d.Title = PersonText(d.Title)
	d.Input = nil // the hooks' (unredacted): events carry the parameters, redacted
	return d
}
