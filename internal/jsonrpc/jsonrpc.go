// Package jsonrpc holds what aci's JSON-RPC 2.0 peers share
// (https://www.jsonrpc.org/specification): the message, the error object
// and the standard error codes. The ACP server and the MCP client each
// run their own connection over it.
package jsonrpc

import (
	"encoding/json"
	"fmt"
)

// The error codes JSON-RPC 2.0 defines.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Error is a JSON-RPC error object; as a Go error, what a request was
// answered with.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// Message is any JSON-RPC message: a request (method and id), a
// notification (method, no id) or a response (id, result or error).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// HasID reports whether the message carries an id; null counts as none
// (JSON-RPC answers with it what could not be read).
func (m *Message) HasID() bool { return len(m.ID) > 0 && string(m.ID) != "null" }
