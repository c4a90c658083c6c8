package ui

import (
	"bytes"
	"testing"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// Pipe progress names each call as its window describes it, no ids.
func TestPipeDescribedCalls(t *testing.T) {
	var w bytes.Buffer
	p := NewPipe(&w)
	run := protocol.Call{ID: "c1", WindowID: "bash_1", ActionID: "run"}
	p.Event(session.ToolCall{Call: run, Desc: windows.Description{Title: "run make test", Kind: "execute"}})
	p.Event(session.ToolResult{Call: run, Result: protocol.Result{Status: protocol.StatusOK, Text: "exit 2, 0.1s"},
		Detail: windows.Result{Status: protocol.StatusOK, Failed: true}})
	ed := protocol.Call{ID: "c2", WindowID: "file_1", ActionID: "edit"}
	p.Event(session.ToolCall{Call: ed, Desc: windows.Description{Title: "edit calc.go", Kind: "edit"}})
	p.Event(session.ToolResult{Call: ed, Result: protocol.Result{Status: protocol.StatusOK, Text: "replaced 1 occurrence"}})
	want := "✗ run make test · failed: exit 2, 0.1s\n✓ edit calc.go · ok: replaced 1 occurrence\n"
	if w.String() != want {
		t.Errorf("pipe progress:\n%s\nwant\n%s", w.String(), want)
	}
}
