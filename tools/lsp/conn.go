// Package lsp is a minimal Language Server Protocol client: it starts
// language servers (contained like commands), keeps the files of aci's
// file windows open in them, and collects the diagnostics they publish.
// Only what diagnostics need is spoken: initialize, the text document
// notifications, publishDiagnostics, shutdown and exit.
package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// maxMessage bounds one message from a server: a broken one cannot make
// aci allocate without end.
const maxMessage = 64 << 20

// conn is a JSON-RPC 2.0 connection over Content-Length framed streams.
// Messages go out through a queue, written by a goroutine of their own:
// a sender never blocks on a server busy writing to aci (whose reader may
// be waiting for the sender's lock).
type conn struct {
	w      io.Writer
	wmu    sync.Mutex
	queue  [][]byte
	wcond  *sync.Cond
	werr   error // why writing stopped
	mu     sync.Mutex
	nextID int64
	calls  map[int64]chan response
	done   chan struct{} // closed when reading stops
	err    error         // why reading stopped
	notify func(method string, params json.RawMessage)
	// settings answer workspace/configuration, by section (guarded by mu).
	settings map[string]any
}

// setSettings gives the answers to the server's configuration requests.
func (c *conn) setSettings(s map[string]any) {
	c.mu.Lock()
	c.settings = s
	c.mu.Unlock()
}

type message struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *rpcError        `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	result json.RawMessage
	err    error
}

// newConn reads r until it ends, handing notifications to notify.
func newConn(r io.Reader, w io.Writer, notify func(string, json.RawMessage)) *conn {
	c := &conn{w: w, calls: map[int64]chan response{}, done: make(chan struct{}), notify: notify}
	c.wcond = sync.NewCond(&c.wmu)
	go c.read(bufio.NewReader(r))
	go c.writeLoop()
	return c
}

// close ends the writing (the process has ended).
func (c *conn) close() {
	c.wmu.Lock()
	if c.werr == nil {
		c.werr = errors.New("the server has ended")
	}
	c.queue = nil
	c.wcond.Broadcast()
	c.wmu.Unlock()
}

func (c *conn) writeLoop() {
	for {
		c.wmu.Lock()
		for len(c.queue) == 0 && c.werr == nil {
			c.wcond.Wait()
		}
		if c.werr != nil {
			c.wmu.Unlock()
			return
		}
		b := c.queue[0]
		c.queue = c.queue[1:]
		c.wmu.Unlock()
		if _, err := c.w.Write(b); err != nil {
			c.wmu.Lock()
			c.werr, c.queue = fmt.Errorf("write to server: %w", err), nil
			c.wmu.Unlock()
			return
		}
	}
}

func (c *conn) read(r *bufio.Reader) {
	var err error
	for {
		var m message
		if m, err = readMessage(r); err != nil {
			break
		}
		switch {
		case m.Method != "" && m.ID != nil:
			// A request from the server (workspace/configuration,
			// window/workDoneProgress/create, ...): answered with
			// null, which every one of them accepts.
			go c.reply(*m.ID, m.Method, m.Params)
		case m.Method != "":
			c.notify(m.Method, m.Params)
		case m.ID != nil:
			id, perr := strconv.ParseInt(string(*m.ID), 10, 64)
			if perr != nil {
				continue
			}
			c.mu.Lock()
			ch := c.calls[id]
			delete(c.calls, id)
			c.mu.Unlock()
			if ch != nil {
				res := response{result: m.Result}
				if m.Error != nil {
					res.err = fmt.Errorf("%s (code %d)", m.Error.Message, m.Error.Code)
				}
				ch <- res
			}
		}
	}
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	close(c.done)
}

// reply answers a server's request: configuration requests get one null
// per item asked, the rest null.
func (c *conn) reply(id json.RawMessage, method string, params json.RawMessage) {
	var result any
	if method == "workspace/configuration" {
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		out := make([]any, len(p.Items))
		c.mu.Lock()
		for i, it := range p.Items {
			out[i] = c.settings[it.Section]
		}
		c.mu.Unlock()
		result = out
	}
	_ = c.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// call sends a request and waits for its answer, ctx or the end of the
// connection.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan response, 1)
	c.calls[id] = ch
	c.mu.Unlock()
	if err := c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return err
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return fmt.Errorf("%s: %w", method, r.err)
		}
		if result != nil && len(r.result) > 0 {
			return json.Unmarshal(r.result, result)
		}
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case <-c.done:
		return fmt.Errorf("%s: the server closed its output", method)
	}
}

// send sends a notification.
func (c *conn) send(method string, params any) error {
	return c.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (c *conn) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	framed := append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(b))), b...)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	c.queue = append(c.queue, framed)
	c.wcond.Signal()
	return nil
}

// readMessage reads one framed message.
func readMessage(r *bufio.Reader) (message, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return message{}, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 || n > maxMessage {
				return message{}, fmt.Errorf("bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return message{}, errors.New("a message without Content-Length")
	}
	b := make([]byte, length)
	if _, err := io.ReadFull(r, b); err != nil {
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		return message{}, fmt.Errorf("bad message: %w", err)
	}
	return m, nil
}
