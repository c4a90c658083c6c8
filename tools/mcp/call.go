package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aci-dev/aci/internal/jsonrpc"
)

// CallResult is a tool's answer as text.
type CallResult struct {
	Text    string // the text content; other content described one line each
	IsError bool   // the tool said it failed
	// Note says something happened to the server on the way (it had
	// exited and was started again).
	Note string
}

// CallTool calls a tool with arguments already checked against its schema.
// A crash, a hang (CallTimeout) or a cancel is an error that says which; the
// server is then stopped, to start afresh at the next call.
func (s *Server) CallTool(ctx context.Context, tool string, args map[string]any) (CallResult, error) {
	var res callToolResult
	params := struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments,omitempty"`
	}{tool, args}
	note, err := s.do(ctx, "call "+tool, func(ctx context.Context, c *conn) error {
		return c.call(ctx, "tools/call", params, &res)
	})
	if err != nil {
		return CallResult{}, err
	}
	text := FormatContent(res.Content)
	if sc := bytes.TrimSpace(res.StructuredContent); text == "" && len(sc) > 0 && string(sc) != "null" {
		var b bytes.Buffer
		if json.Compact(&b, sc) == nil {
			text = b.String()
		}
	}
	return CallResult{Text: text, IsError: res.IsError, Note: note}, nil
}

// ReadResource reads one resource as text.
func (s *Server) ReadResource(ctx context.Context, uri string) (CallResult, error) {
	var res readResourceResult
	note, err := s.do(ctx, "read "+uri, func(ctx context.Context, c *conn) error {
		return c.call(ctx, "resources/read", map[string]string{"uri": uri}, &res)
	})
	if err != nil {
		return CallResult{}, err
	}
	var parts []string
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		parts = append(parts, resourceText(c))
	}
	return CallResult{Text: strings.Join(parts, "\n"), Note: note}, nil
}

// do runs one request on a running server, starting it first if needed,
// and turns every way it can fail into a clear error.
func (s *Server) do(ctx context.Context, what string, f func(context.Context, *conn) error) (string, error) {
	s.mu.Lock()
	var note string
	if s.cur != nil && s.cur.conn.ended() != nil {
		<-s.cur.done // its watcher is closing it; the note says how it ended
		note = fmt.Sprintf("MCP server %s had stopped (%s) and was started again", s.cfg.Name, s.cur.note)
	}
	if !s.runningLocked() {
		s.cleanupLocked()
		if err := s.startLocked(ctx); err != nil {
			s.mu.Unlock()
			return "", err
		}
	}
	r := s.cur
	s.mu.Unlock()

	timeout := s.pool.opts.CallTimeout
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := f(cctx, r.conn)
	if err == nil {
		return note, nil
	}
	name := s.cfg.Name
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("%s on MCP server %s: canceled", what, name)
	case cctx.Err() != nil:
		// A server that does not answer may never: stop it so the next
		// call starts a fresh one rather than queue behind this.
		s.restartLater(r)
		return "", fmt.Errorf("%s on MCP server %s: no answer within %s; the server was stopped and starts again at the next call", what, name, seconds(timeout))
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return "", fmt.Errorf("%s: MCP server %s answered with an error: %s (code %d)", what, name, rpcErr.Message, rpcErr.Code)
	}
	if r.conn.ended() == nil {
		return "", fmt.Errorf("%s on MCP server %s: %w", what, name, err)
	}
	// The connection is over: the watcher reaps the process, and its
	// exit status says how it ended.
	select {
	case <-r.done:
	case <-time.After(3 * terminateWait):
	}
	if errors.Is(err, errSessionExpired) {
		return "", fmt.Errorf("%s on MCP server %s: %v; a new session starts at the next call", what, name, err)
	}
	tail := ""
	if r.cmd != nil {
		tail = logTail(s.LogPath(), r.logFrom)
	}
	if r.ended() {
		return "", fmt.Errorf("%s: MCP server %s stopped during the call (%s); it starts again at the next call%s", what, name, r.note, tail)
	}
	return "", fmt.Errorf("%s on MCP server %s: %w", what, name, err)
}

// restartLater stops run r, if it is still the current one.
func (s *Server) restartLater(r *run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == r {
		s.stopLocked()
	}
}

// FormatContent renders a tool's content blocks: text as it is, anything
// else as one line describing it.
func FormatContent(content []Content) string {
	var parts []string
	for _, c := range content {
		switch c.Type {
		case "text":
			parts = append(parts, c.Text)
		case "image", "audio":
			parts = append(parts, fmt.Sprintf("[%s %s, %d bytes]", c.Type, c.MIMEType, decodedLen(c.Data)))
		case "resource_link":
			line := "[resource link " + c.URI
			if c.Name != "" {
				line += " " + c.Name
			}
			if c.Description != "" {
				line += ": " + OneLine(c.Description)
			}
			parts = append(parts, line+"; read(uri) shows it]")
		case "resource":
			if c.Resource != nil {
				parts = append(parts, resourceText(c.Resource))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%s content]", OneLine(c.Type)))
		}
	}
	return strings.Join(parts, "\n")
}

func resourceText(c *ResourceContents) string {
	if c.Text != "" || c.Blob == "" {
		return c.Text
	}
	mime := c.MIMEType
	if mime == "" {
		mime = "binary"
	}
	return fmt.Sprintf("[%s %s, %d bytes]", mime, c.URI, decodedLen(c.Blob))
}

// OneLine is the first line of s, at most 120 characters.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}

// seconds prints a duration as people write it: "60 s", "300ms".
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.String()
}
