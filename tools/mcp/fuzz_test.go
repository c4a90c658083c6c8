package mcp

import (
	"bytes"
	"context"
	"testing"
)

// nopTransport drops what is sent.
type nopTransport struct{}

func (nopTransport) start()                                    {}
func (nopTransport) send(context.Context, []byte, int64) error { return nil }
func (nopTransport) agreed(string)                             {}
func (nopTransport) ready()                                    {}
func (nopTransport) close()                                    {}

// Whatever a server sends, reading it does not panic.
func FuzzServerMessages(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`,
		`{"jsonrpc":"2.0","id":"x","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`[{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}},3]`,
		"id: 4\nretry: 10\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n: comment\nevent: x\ndata\n\n",
		`{"result":{"x":1},"jsonrpc":"2.0","id":7}`,
		"\x00{", `{"jsonrpc":"2.0","id":null}`, `{"jsonrpc":"2.0","id":-1,"result":null}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newConn(func() {}, func(string) {})
		c.t = nopTransport{}
		c.pending[1] = make(chan reply, 1)
		c.deliver(data)
		_ = readSSE(bytes.NewReader(data), func(ev sseEvent) bool { c.deliver(ev.data); return true })
		idOfCut(data, data)
		c.close()
	})
}
