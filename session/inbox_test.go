package session

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// A front end that stops taking events stalls nothing: pushes return at
// once, what waits for it stays bounded (output joins, a running
// window's content replaces the one before), and once it reads again it
// gets everything in order.
func TestInboxNeverWaits(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var got []Event
	in := newInbox(func(e Event) {
		<-release
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	})
	defer in.close()
	piece := strings.Repeat("x", 1023) + "\n"
	start := time.Now()
	in.push(Turn{Turn: 1})
	in.push(ToolCall{})
	for i := range 10000 { // 10 MB
		in.push(Output{CallID: "c1", WindowID: "bash_1", Text: piece})
		if i%100 == 0 {
			in.push(Window{ID: "bash_1", Running: true, Content: piece})
		}
	}
	in.push(Output{CallID: "c1", WindowID: "bash_1", Text: "the end\n"})
	in.push(ToolResult{})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("pushing took %v", took)
	}
	in.mu.Lock()
	n, size := len(in.evs), 0
	for _, e := range in.evs {
		if o, ok := e.(*queuedOutput); ok {
			size += o.b.Len()
		}
	}
	in.mu.Unlock()
	if n > 6 || size == 0 || size > 2*maxQueuedOutput {
		t.Errorf("%d events, %d bytes of output wait for a stalled reader", n, size)
	}
	close(release)
	in.flush()
	mu.Lock()
	defer mu.Unlock()
	var types []string
	var out strings.Builder
	for _, e := range got {
		types = append(types, e.Type())
		if o, ok := e.(Output); ok {
			out.WriteString(o.Text)
		}
	}
	if types[0] != "turn" || types[1] != "tool_call" || types[len(types)-1] != "tool_result" {
		t.Errorf("order %v", types)
	}
	if s := out.String(); !strings.HasSuffix(s, "the end\n") || !strings.Contains(s, "bytes printed while this reader fell behind") {
		t.Errorf("output %d bytes, ends %q", len(s), s[max(0, len(s)-40):])
	}
}
