package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/aci-dev/aci/internal/jsonrpc"
)

// JSON-RPC 2.0 over newline-delimited JSON, both ways: the editor calls
// aci's methods and aci calls the editor's (permission, files). A small
// layer of its own rather than a library: the Go ACP libraries seen skip
// a line that is not JSON without the -32700 answer JSON-RPC asks for.

// ACP's code for a cancelled request (JSON-RPC's own codes are in
// internal/jsonrpc).
const codeCancelled = -32800

// maxLine bounds one incoming message; a prompt with embedded files fits.
const maxLine = 64 << 20

// rpcError is a JSON-RPC error object; as a Go error it is what a method
// answers with.
type rpcError = jsonrpc.Error

func invalidParams(format string, args ...any) *rpcError {
	return &rpcError{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// message is any JSON-RPC message.
type message = jsonrpc.Message

// handler answers one request or notification. A notification's answer
// is dropped.
type handler func(ctx context.Context, method string, params json.RawMessage) (any, error)

// conn is one JSON-RPC connection.
type conn struct {
	w   io.Writer
	log *log.Logger

	wmu sync.Mutex // one message at a time on the wire

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[string]chan message // our requests waiting for their answer
	closed  bool
	// redact removes the secrets from what send is asked to redact; nil:
	// nothing to remove.
	redact func(string) string
}

func newConn(w io.Writer, logger *log.Logger) *conn {
	return &conn{w: w, log: logger, pending: map[string]chan message{}}
}

// serve reads messages until r ends. Requests run on their own goroutines
// (a prompt runs for minutes while cancel and permission answers arrive);
// notifications run in order on the reader's, so they must not block.
// It returns once r has ended and every request handler has returned.
func (c *conn) serve(ctx context.Context, r io.Reader, h handler) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	// The editor gone, the running requests end: prompts are cancelled
	// and calls to the editor fail.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer c.shut()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if tooLong {
			c.log.Printf("dropped a message over %d MB", maxLine>>20)
			c.reply(json.RawMessage("null"), nil, &rpcError{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("message over %d MB", maxLine>>20)})
		} else if len(bytes.TrimSpace(line)) > 0 {
			c.dispatch(ctx, line, h, &wg)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
	}
}

// readLine reads one line, without its end; a line over maxLine is read
// to its end and dropped.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

func (c *conn) dispatch(ctx context.Context, line []byte, h handler, wg *sync.WaitGroup) {
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		// ACP sends no batches.
		c.reply(json.RawMessage("null"), nil, &rpcError{Code: jsonrpc.CodeInvalidRequest, Message: "batches are not supported"})
		return
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		if json.Valid(line) {
			// JSON, but not a message's shape ("jsonrpc": 2, "method": 1).
			c.reply(json.RawMessage("null"), nil, &rpcError{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + err.Error()})
			return
		}
		c.reply(json.RawMessage("null"), nil, &rpcError{Code: jsonrpc.CodeParseError, Message: "parse error: " + err.Error()})
		return
	}
	switch {
	case m.Method == "" && m.ID != nil && (m.Result != nil || m.Error != nil):
		c.answered(m)
	case m.JSONRPC != "2.0":
		// JSON-RPC 2.0 asks for the version on every message; one without
		// it is not a request of this protocol, whatever else it holds.
		if m.ID == nil {
			c.log.Printf("dropped a notification without \"jsonrpc\": \"2.0\" (%s)", m.Method)
			return
		}
		id := m.ID
		if !validID(id) {
			id = json.RawMessage("null")
		}
		c.reply(id, nil, &rpcError{Code: jsonrpc.CodeInvalidRequest, Message: `invalid request: "jsonrpc" must be "2.0"`})
	case m.Method == "":
		id := m.ID
		if id == nil {
			id = json.RawMessage("null")
		}
		c.reply(id, nil, &rpcError{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: no method"})
	case m.ID == nil:
		if _, err := h(ctx, m.Method, m.Params); err != nil {
			c.log.Printf("notification %s: %v", m.Method, err)
		}
	default:
		if !validID(m.ID) {
			c.reply(json.RawMessage("null"), nil, &rpcError{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: id must be a string or a number"})
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.handle(ctx, h, m)
			c.reply(m.ID, res, err)
			if f, ok := res.(followed); ok && err == nil {
				f.then()
			}
		}()
	}
}

// handle runs a request's handler; a panic becomes an internal error.
func (c *conn) handle(ctx context.Context, h handler, m message) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Printf("%s: panic: %v", m.Method, r)
			res, err = nil, &rpcError{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	return h(ctx, m.Method, m.Params)
}

func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// reply answers a request.
func (c *conn) reply(id json.RawMessage, res any, err error) {
	m := message{ID: id}
	if err != nil {
		var re *rpcError
		if !errors.As(err, &re) {
			re = &rpcError{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		m.Error = re
	} else {
		if res == nil {
			res = struct{}{}
		}
		data, merr := json.Marshal(res)
		if merr != nil {
			m.Error = &rpcError{Code: jsonrpc.CodeInternalError, Message: "encode the result: " + merr.Error()}
		} else {
			m.Result = data
		}
	}
	c.send(m, true)
}

// notify sends a notification. Params that hold only what was redacted
// where it was made (the session's events) are not redacted again
// (redact false), so the editor gets the same text as every other wire.
func (c *conn) notify(method string, params any, redact bool) {
	data, err := json.Marshal(params)
	if err != nil {
		c.log.Printf("encode %s: %v", method, err)
		return
	}
	c.send(message{Method: method, Params: data}, redact)
}

// send writes one message as one line. Everything but a file's content
// on its way into the editor passes the secrets redactor: the API key
// never reaches the editor, whatever a command printed.
func (c *conn) send(m message, redact bool) {
	m.JSONRPC = "2.0"
	data, err := json.Marshal(m)
	if err != nil {
		c.log.Printf("encode a message: %v", err)
		return
	}
	if redact && c.redact != nil {
		data = []byte(c.redact(string(data)))
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(append(data, '\n')); err != nil {
		c.log.Printf("write: %v", err)
	}
}

// errClosed answers the calls still waiting when the editor went away.
var errClosed = errors.New("the editor closed the connection")

// call sends a request to the editor and waits for its answer, until ctx
// ends: then the editor is told ($/cancel_request) and ctx's error
// returned. redact is false only for content the editor must get as is.
func (c *conn) call(ctx context.Context, method string, params, result any, redact bool) error {
	data, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("encode %s: %w", method, err)
	}
	id := strconv.FormatInt(c.nextID.Add(1), 10)
	ch := make(chan message, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errClosed
	}
	c.pending[id] = ch
	c.mu.Unlock()
	c.send(message{ID: json.RawMessage(id), Method: method, Params: data}, redact)
	select {
	case m, ok := <-ch:
		if !ok {
			return errClosed
		}
		if m.Error != nil {
			return m.Error
		}
		if result != nil {
			if err := json.Unmarshal(m.Result, result); err != nil {
				return &rpcError{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("the editor's answer to %s: %v", method, err)}
			}
		}
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		c.notify("$/cancel_request", map[string]any{"requestId": json.RawMessage(id)}, true)
		return ctx.Err()
	}
}

// answered hands a response to the call waiting for it.
func (c *conn) answered(m message) {
	var n json.Number
	key := string(m.ID)
	if json.Unmarshal(m.ID, &n) == nil {
		key = n.String()
	}
	c.mu.Lock()
	ch, ok := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if !ok {
		c.log.Printf("an answer to no request (id %s)", m.ID)
		return
	}
	ch <- m
}

// shut fails every call still waiting: the editor is gone.
func (c *conn) shut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}
