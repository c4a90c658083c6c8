package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/aci-dev/aci/internal/jsonrpc"
)

// maxMessage bounds one message from a server (a stdio line, an HTTP body,
// an SSE event), as the SDK aci used before did: a larger one is skipped,
// not read into memory. A variable for tests.
var maxMessage = 16 << 20

// callID reads the id of a response to one of our requests: they are
// numbered from 1, so anything else answers no request of ours.
func callID(raw json.RawMessage) (int64, bool) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return n, err == nil && n > 0
}

// encodeRequest is a request (id > 0) or a notification (id 0).
func encodeRequest(id int64, method string, params any) ([]byte, error) {
	m := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id,omitempty"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", id, method, params}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the request: %w", method, err)
	}
	return data, nil
}

// encodeResponse answers a server's request: a result, or an error when
// rpcErr is set.
func encodeResponse(id json.RawMessage, result any, rpcErr *jsonrpc.Error) []byte {
	m := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *jsonrpc.Error  `json:"error,omitempty"`
	}{"2.0", id, result, rpcErr}
	data, _ := json.Marshal(m) // plain values: cannot fail
	return data
}

// idOfCut finds the id of a message too large to read, from its start and
// its end, so that the one call it answers fails instead of waiting for its
// timeout. Servers write "id" before the result (Go) or after it
// (TypeScript: {"result":…,"jsonrpc":"2.0","id":7}).
func idOfCut(head, tail []byte) (int64, bool) {
	if id, ok := idAtStart(head); ok {
		return id, true
	}
	return idAtEnd(tail)
}

// idAtStart reads the top-level members before the first large one.
func idAtStart(head []byte) (int64, bool) {
	d := json.NewDecoder(bytes.NewReader(head))
	d.UseNumber()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return 0, false
	}
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return 0, false
		}
		val, err := d.Token()
		if err != nil {
			return 0, false
		}
		if key == "id" {
			n, ok := val.(json.Number)
			if !ok {
				return 0, false
			}
			return callID(json.RawMessage(n))
		}
		if _, nested := val.(json.Delim); nested {
			return 0, false // the large member: the id is not before it
		}
	}
	return 0, false
}

// idAtEnd reads `"id":7}` (or `"id":7,"jsonrpc":"2.0"}`) closing the
// message: followed by the last brace, the id is a top-level member.
func idAtEnd(tail []byte) (int64, bool) {
	s := strings.TrimSpace(string(tail))
	if !strings.HasSuffix(s, "}") {
		return 0, false
	}
	s = strings.TrimSpace(strings.TrimSuffix(s, "}"))
	s = strings.TrimSuffix(s, `,"jsonrpc":"2.0"`)
	i := strings.LastIndex(s, `"id"`)
	if i < 0 {
		return 0, false
	}
	rest := strings.TrimSpace(s[i+len(`"id"`):])
	rest, ok := strings.CutPrefix(rest, ":")
	if !ok {
		return 0, false
	}
	return callID(json.RawMessage(strings.TrimSpace(rest)))
}
