package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/ui"
)

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// One session, seen by pipe mode's stream-json and by a server client,
// gives the same bytes per event: words with & < >, a failing command
// (its exit code), an edit (its diff), an approval, a cancelled turn.
func TestSameBytesOnEveryWire(t *testing.T) {
	r := newRig(t, nil)
	r.ai.Push(calcRun(t, r.dir)...)

	// Pipe mode's writer, one per turn: it ends its output at a result.
	var mu sync.Mutex
	var outs []*testutil.SyncBuffer
	var cur *ui.Headless
	next := func() {
		mu.Lock()
		defer mu.Unlock()
		b := &testutil.SyncBuffer{}
		outs = append(outs, b)
		cur = ui.NewHeadless(ui.FormatStreamJSON, b)
	}
	next()
	ss, err := r.srv.cfg.Factory.New(context.Background(), session.Options{Workdir: r.dir, Events: func(ev session.Event) {
		mu.Lock()
		h := cur
		mu.Unlock()
		h.Event(ev)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	if err := r.srv.Host(ss); err != nil {
		t.Fatal(err)
	}
	id := ss.ID()
	ev := r.events(id, "")

	done := make(chan struct{})
	go func() { ss.Ask(context.Background(), "check it"); close(done) }()
	q := ev.until(is("approval"))
	r.must(200, "POST", "/api/sessions/"+id+"/approvals/"+q[len(q)-1].Data["request_id"].(string), `{"decision":"allow"}`, nil)
	<-done
	sse := append(q, ev.until(idle)...)

	next()
	done = make(chan struct{})
	go func() { ss.Ask(context.Background(), "and again"); close(done) }()
	sse = append(sse, ev.until(func(e event) bool { return e.Type == "state" && e.Data["state"] == "awaiting_model" })...)
	r.must(200, "POST", "/api/sessions/"+id+"/cancel", nil, nil)
	<-done
	sse = append(sse, ev.until(idle)...)

	// The stream-json lines, the init lines left out.
	var piped []string
	for _, b := range outs {
		sc := bufio.NewScanner(strings.NewReader(b.String()))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if !strings.HasPrefix(sc.Text(), `{"type":"init"`) {
				piped = append(piped, sc.Text())
			}
		}
	}
	var served []string
	for _, e := range sse {
		switch e.Type {
		case "text", "tool_call", "output", "tool_result", "notice", "result":
			served = append(served, e.Raw)
		}
	}
	if strings.Join(piped, "\n") != strings.Join(served, "\n") {
		t.Fatalf("stream-json\n%s\n\nSSE\n%s", strings.Join(piped, "\n"), strings.Join(served, "\n"))
	}
	all := strings.Join(piped, "\n")
	for _, want := range []string{
		`a && <b>`,       // not \u0026, not \u003c
		`"exit_code":3`,  // the failing command
		`"exit_code":0`,  // the approved one
		`+x = 2 # a < b`, // the edit's diff
		`"result":"Done & dusted."`,
		`"is_error":true,"outcome":"interrupted","result":"","error":"interrupted"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the events lack %q:\n%s", want, all)
		}
	}
	// Each call as a person reads it: no window ids, no JSON.
	if want := `"title":"edit calc.py","kind":"edit","paths":[` + strconvQuote(filepath.Join(r.dir, "calc.py")) + `]`; !strings.Contains(all, want) {
		t.Errorf("no %s in\n%s", want, all)
	}
	if q := q[len(q)-1].Data; q["title"] != "run rm -rf ~/keep" {
		t.Errorf("the approval's title is %q", q["title"])
	}
	if strings.Contains(all, `\u0026`) || strings.Contains(all, `\u003c`) {
		t.Errorf("HTML escaped on a wire:\n%s", all)
	}
	var last map[string]any
	json.Unmarshal([]byte(piped[len(piped)-1]), &last)
	if last["type"] != "result" {
		t.Errorf("the last event is %v", last)
	}
}
