package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aci-dev/aci/internal/jsonrpc"
)

// Protocol versions: aci asks for the newest one the initialize handshake
// has (MCP 2026-07-28 replaces the handshake with server/discover, which
// aci does not speak) and accepts an older one a server answers with.
const protocolVersion = "2025-11-25"

var knownVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// transport carries a connection's messages. Messages it receives go to the
// conn given when it was made; it reports the connection's end there too.
type transport interface {
	// start begins receiving; called once the conn can answer.
	start()
	// send sends one message. For a request (id > 0) it may also read
	// the answer before returning (HTTP); otherwise the answer comes later.
	send(ctx context.Context, data []byte, id int64) error
	// agreed is told the protocol version the handshake agreed on.
	agreed(version string)
	// ready is told the handshake is done.
	ready()
	// close ends the connection and waits for what the transport started.
	close()
}

// conn is one MCP session with a server: requests matched to answers by
// id, the server's requests answered, its list changes reported.
type conn struct {
	t        transport
	onChange func()       // a list changed on the server
	note     func(string) // a line for the server's log

	mu      sync.Mutex
	next    int64
	pending map[int64]chan reply
	done    chan struct{} // closed when the connection has ended
	err     error         // why; set before done is closed
	init    initializeResult

	closeOnce sync.Once
	closed    chan struct{} // closed once close has finished
	wg        sync.WaitGroup
}

type reply struct {
	result json.RawMessage
	err    error
}

// errClosed ends a connection aci closed.
var errClosed = errors.New("connection closed")

func newConn(onChange func(), note func(string)) *conn {
	return &conn{onChange: onChange, note: note, pending: map[int64]chan reply{},
		done: make(chan struct{}), closed: make(chan struct{})}
}

// end records that the connection is over, once; pending calls get err.
func (c *conn) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.done:
		return
	default:
	}
	c.err = err
	close(c.done)
}

// ended reports the connection's end: nil while it is up.
func (c *conn) ended() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// close ends the connection and whatever it started (a server process);
// concurrent callers all wait for it.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.end(errClosed)
		if c.t != nil {
			c.t.close()
		}
		c.wg.Wait()
		close(c.closed)
	})
	<-c.closed
}

// call sends a request and decodes its answer into out.
func (c *conn) call(ctx context.Context, method string, params, out any) error {
	c.mu.Lock()
	if c.ended() != nil {
		c.mu.Unlock()
		return c.err
	}
	c.next++
	id := c.next
	ch := make(chan reply, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	defer c.forget(id)

	data, err := encodeRequest(id, method, params)
	if err != nil {
		return err
	}
	err = c.t.send(ctx, data, id)
	var r reply
	select {
	case r = <-ch: // answered while sending (HTTP): done, whatever else happened
	default:
		if err == nil {
			select {
			case r = <-ch:
			case <-ctx.Done():
				err = ctx.Err()
			case <-c.done:
				err = c.err
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				c.cancelled(id, method)
				return ctx.Err()
			}
			return err
		}
	}
	if r.err != nil {
		return r.err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(r.result, out); err != nil {
		return fmt.Errorf("%s: the answer is not what MCP says: %w", method, err)
	}
	return nil
}

func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// cancelled tells the server a request was given up (not for initialize:
// the protocol forbids it).
func (c *conn) cancelled(id int64, method string) {
	if method == "initialize" || c.ended() != nil {
		return
	}
	c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "canceled by aci"})
}

// notify sends a notification in the background; a failure to send it
// shows in the calls that follow.
func (c *conn) notify(method string, params any) {
	data, err := encodeRequest(0, method, params)
	if err != nil {
		return
	}
	c.background(data)
}

// background sends without holding up the reader of the server's
// messages; close waits for it. Nothing starts once the connection ended.
func (c *conn) background(data []byte) {
	c.mu.Lock()
	if c.ended() != nil {
		c.mu.Unlock()
		return
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.t.send(ctx, data, 0)
	}()
}

// deliver takes one message as read; it returns the id of the call it
// answered, 0 for anything else.
func (c *conn) deliver(data []byte) int64 {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return 0
	}
	if data[0] == '[' { // a batch (MCP 2025-03-26)
		var batch []json.RawMessage
		if json.Unmarshal(data, &batch) != nil {
			c.malformed(data)
			return 0
		}
		for _, m := range batch {
			c.deliver(m)
		}
		return 0
	}
	var m jsonrpc.Message
	if err := json.Unmarshal(data, &m); err != nil || m.JSONRPC != "2.0" {
		c.malformed(data)
		return 0
	}
	switch {
	case m.Method != "" && m.HasID():
		c.answer(&m)
	case m.Method != "":
		if m.Method == "notifications/tools/list_changed" || m.Method == "notifications/resources/list_changed" {
			c.onChange()
		}
	case m.HasID():
		id, ok := callID(m.ID)
		if !ok {
			c.malformed(data)
			return 0
		}
		r := reply{result: m.Result}
		switch {
		case m.Error != nil:
			r = reply{err: m.Error}
		case m.Result == nil:
			r = reply{err: errors.New("the server's answer has neither a result nor an error")}
		}
		c.resolve(id, r)
		return id
	default:
		c.malformed(data)
	}
	return 0
}

// resolve hands a call its answer, if it still waits.
func (c *conn) resolve(id int64, r reply) {
	c.mu.Lock()
	ch := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ch != nil {
		ch <- r
	}
}

// tooLarge handles a message over maxMessage: the call it answers fails;
// if no call can be told, the connection ends rather than leave one
// waiting for its timeout.
func (c *conn) tooLarge(head, tail []byte) {
	if id, ok := idOfCut(head, tail); ok {
		c.resolve(id, reply{err: errTooLarge()})
		return
	}
	c.note(fmt.Sprintf("aci: skipped a message of more than %d bytes", maxMessage))
	c.end(fmt.Errorf("the server sent a message larger than %d bytes", maxMessage))
}

// errTooLarge fails a call whose answer is over maxMessage.
func errTooLarge() error {
	if maxMessage >= 1<<20 {
		return fmt.Errorf("the server's answer is larger than %d MB, more than aci reads", maxMessage>>20)
	}
	return fmt.Errorf("the server's answer is larger than %d bytes, more than aci reads", maxMessage)
}

// answer replies to the server's request: ping is answered, anything else
// refused, as aci declares no client capability.
func (c *conn) answer(m *jsonrpc.Message) {
	if m.Method == "ping" {
		c.background(encodeResponse(m.ID, struct{}{}, nil))
		return
	}
	c.background(encodeResponse(m.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "aci does not answer " + m.Method}))
}

func (c *conn) malformed(data []byte) {
	if len(data) > 200 {
		data = append(data[:200:200], "…"...)
	}
	c.note(fmt.Sprintf("aci: ignored output that is not a JSON-RPC message: %q", data))
}

// initialize runs the handshake.
func (c *conn) initialize(ctx context.Context, version string) error {
	params := initializeParams{ProtocolVersion: protocolVersion, ClientInfo: implementation{Name: "aci", Version: version}}
	var res initializeResult
	if err := c.call(ctx, "initialize", params, &res); err != nil {
		return err
	}
	if !slices.Contains(knownVersions, res.ProtocolVersion) {
		return fmt.Errorf("the server speaks MCP version %q; aci knows %v", res.ProtocolVersion, knownVersions)
	}
	c.mu.Lock()
	c.init = res
	c.mu.Unlock()
	c.t.agreed(res.ProtocolVersion)
	data, err := encodeRequest(0, "notifications/initialized", nil)
	if err != nil {
		return err
	}
	if err := c.t.send(ctx, data, 0); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	c.t.ready()
	return nil
}

// maxPages stops a server whose cursors never end.
const maxPages = 1000

// list fetches every page of a list.
func (c *conn) list(ctx context.Context, method string) (listResult, error) {
	var all listResult
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		var page listResult
		if err := c.call(ctx, method, params, &page); err != nil {
			return all, err
		}
		all.Tools = append(all.Tools, page.Tools...)
		all.Resources = append(all.Resources, page.Resources...)
		all.ResourceTemplates = append(all.ResourceTemplates, page.ResourceTemplates...)
		if page.NextCursor == "" {
			return all, nil
		}
		if page.NextCursor == cursor {
			return all, fmt.Errorf("%s: the server gave the same cursor twice", method)
		}
		cursor = page.NextCursor
	}
	return all, fmt.Errorf("%s: more than %d pages", method, maxPages)
}
