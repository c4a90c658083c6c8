package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/jsonrpc"
	"github.com/aci-dev/aci/internal/testutil"
)

// A request without "jsonrpc": "2.0" is refused with -32600 and never
// reaches a method; one with it does.
func TestRequestWithoutVersion(t *testing.T) {
	tests := []struct {
		name, line string
		code       int // 0: the method ran
		id         string
	}{
		{"no version", `{"id":1,"method":"initialize","params":{}}`, jsonrpc.CodeInvalidRequest, "1"},
		{"version 1.0", `{"jsonrpc":"1.0","id":"a","method":"initialize"}`, jsonrpc.CodeInvalidRequest, `"a"`},
		{"version as number", `{"jsonrpc":2.0,"id":3,"method":"initialize"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"bad id too", `{"id":{},"method":"initialize"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"2.0", `{"jsonrpc":"2.0","id":4,"method":"initialize"}`, 0, "4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &testutil.SyncBuffer{}
			c := newConn(out, log.New(io.Discard, "", 0))
			ran := false
			h := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
				ran = true
				return map[string]string{"ok": "yes"}, nil
			}
			if err := c.serve(context.Background(), strings.NewReader(tt.line+"\n"), h); err != nil {
				t.Fatal(err)
			}
			var m message
			if err := json.Unmarshal(bytes.TrimSpace([]byte(out.String())), &m); err != nil {
				t.Fatalf("answer %q: %v", out.String(), err)
			}
			if string(m.ID) != tt.id || m.JSONRPC != "2.0" {
				t.Errorf("answer %s", out.String())
			}
			switch {
			case tt.code == 0 && (m.Error != nil || !ran):
				t.Errorf("a 2.0 request was refused: %s", out.String())
			case tt.code != 0 && (m.Error == nil || m.Error.Code != tt.code || ran):
				t.Errorf("answer %s (method ran: %v), want error %d", out.String(), ran, tt.code)
			}
		})
	}
	// A notification without the version is dropped: nothing runs, nothing answers.
	out := &testutil.SyncBuffer{}
	ran := false
	c := newConn(out, log.New(io.Discard, "", 0))
	c.serve(context.Background(), strings.NewReader(`{"method":"session/cancel","params":{}}`+"\n"),
		func(context.Context, string, json.RawMessage) (any, error) { ran = true; return nil, nil })
	if ran || len(out.String()) != 0 {
		t.Errorf("a notification without the version ran (%v) or was answered: %q", ran, out.String())
	}
}
