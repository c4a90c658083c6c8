package mcp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
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

// A line over the limit fails the call it answers, found at its end as the
// TypeScript SDK writes it; one that answers no call ends the connection
// rather than leave a call waiting for its timeout.
func TestStreamOversizedLine(t *testing.T) {
	defer func(m int) { maxMessage = m }(maxMessage)
	maxMessage = 1000
	client, server := net.Pipe()
	defer server.Close()
	c := newConn(func() {}, func(string) {})
	c.t = dialStream(c, client)
	c.t.start()
	defer c.close()
	go func() { // the server: reads each request, answers the first too large
		br := bufio.NewReader(server)
		if _, err := br.ReadBytes('\n'); err != nil {
			return
		}
		fmt.Fprintf(server, `{"result":{"text":"%s"},"jsonrpc":"2.0","id":1}`+"\n", strings.Repeat("x", 5000))
		fmt.Fprintf(server, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"%s"}}`+"\n", strings.Repeat("x", 5000))
	}()
	err := c.call(context.Background(), "tools/call", nil, nil)
	if err == nil || err.Error() != "the server's answer is larger than 1000 bytes, more than aci reads" {
		t.Errorf("call: %v", err)
	}
	<-c.done
	if err := c.ended(); err == nil || err.Error() != "the server sent a message larger than 1000 bytes" {
		t.Errorf("end: %v", err)
	}
}
