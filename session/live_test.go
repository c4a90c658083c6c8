package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A command's output goes out as it runs: in order, before its result,
// coalesced, and the window it runs in shows it while it runs.
func TestOutputAsItRuns(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: call("launcher", "open", `{"app":"bash"}`)},
		fakeai.Reply{Content: call("bash_1", "run", `{"command":"for i in 1 2 3 4; do echo line$i; sleep 0.3; done; seq 1 3000 | sed s/^/fast/"}`)},
		fakeai.Reply{Content: "Done."},
	)
	s, live := watched(t, srv)
	if _, err := s.Start("count"); err != nil {
		t.Fatal(err)
	}
	type arrival struct {
		ev wev
		at time.Time
	}
	var got []arrival
	deadline := time.After(30 * time.Second)
	for done := false; !done; {
		select {
		case nev, ok := <-live:
			if !ok {
				t.Fatal("events closed")
			}
			ev := wire(t, nev)
			got = append(got, arrival{ev, time.Now()})
			done = ev.Type == "result"
		case <-deadline:
			t.Fatal("no result")
		}
	}
	var joined strings.Builder
	var outputs []arrival
	runningWindow, resultSeen := false, false
	for _, a := range got {
		switch a.ev.Type {
		case "output":
			if resultSeen {
				t.Errorf("output after the tool_result: %v", a.ev.Data)
			}
			if a.ev.Data["window_id"] != "bash_1" || a.ev.Data["call_id"] == "" || a.ev.Data["call_id"] == nil {
				t.Errorf("output %v", a.ev.Data)
			}
			outputs = append(outputs, a)
			joined.WriteString(a.ev.Data["text"].(string))
		case "window":
			c, _ := a.ev.Data["content"].(string)
			if a.ev.Data["id"] == "bash_1" && strings.Contains(c, "line1") && strings.HasSuffix(c, "[running]") {
				runningWindow = true
			}
		case "tool_result":
			if o, _ := a.ev.Data["output"].(string); a.ev.Data["status"] == "ok" && strings.Contains(o, "fast3000") {
				resultSeen = true
			}
		}
	}
	var want strings.Builder
	for i := 1; i <= 4; i++ {
		want.WriteString("line" + string(rune('0'+i)) + "\n")
	}
	for i := 1; i <= 3000; i++ {
		want.WriteString("fast" + itoa(i) + "\n")
	}
	if joined.String() != want.String() {
		t.Errorf("the pieces join to %d bytes, want %d: %.200q", joined.Len(), want.Len(), joined.String())
	}
	if !resultSeen {
		t.Error("no tool_result with the output")
	}
	if !runningWindow {
		t.Error("no window event showing the command running")
	}
	// Spaced in time: the first line went out long before the last.
	if len(outputs) < 3 || outputs[len(outputs)-1].at.Sub(outputs[0].at) < 600*time.Millisecond {
		t.Errorf("%d output events, not spread over the run", len(outputs))
	}
	// Coalesced: about ten a second, whatever the command printed.
	span := outputs[len(outputs)-1].at.Sub(outputs[0].at)
	if max := int(span/liveEvery) + 3; len(outputs) > max {
		t.Errorf("%d output events in %s: more than about ten a second", len(outputs), span)
	}
}

func itoa(n int) string {
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// The person's own command (the REPL's !cmd) is a call like the model's.
func TestCommandIsACall(t *testing.T) {
	srv := fakeai.New(t)
	f, work := newFactory(t, srv)
	var evs []Event
	s, err := f.New(context.Background(), Options{Workdir: work, Events: func(ev Event) { evs = append(evs, ev) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, id, err := s.Command(context.Background(), "echo one; sleep 0.3; echo two")
	if err != nil || id != "bash_1" || !strings.Contains(res.Output, "two") {
		t.Fatalf("Command: %+v %s %v", res, id, err)
	}
	var order []string
	var out string
	for _, ev := range evs {
		switch e := ev.(type) {
		case ToolCall:
			order = append(order, "tool_call:"+e.Call.ID)
		case Output:
			out += e.Text
			if len(order) == 0 || order[len(order)-1] != "output" {
				order = append(order, "output")
			}
		case ToolResult:
			order = append(order, "tool_result:"+e.Call.ID)
		}
	}
	if strings.Join(order, " ") != "tool_call:user output tool_result:user" || out != "one\ntwo\n" {
		t.Errorf("events %v, output %q", order, out)
	}
}

// A background task's output goes out as it comes too, with its task id,
// until the task ends, after the turn that started it.
func TestTaskOutputAsItRuns(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: call("launcher", "open", `{"app":"bash"}`)},
		fakeai.Reply{Content: call("bash_1", "start", `{"command":"for i in 1 2 3; do echo bg-$i; sleep 0.3; done"}`)},
		fakeai.Reply{Content: "Started."},
	)
	s, live := watched(t, srv)
	if _, err := asked(context.Background(), s, "start it"); err != nil {
		t.Fatal(err)
	}
	var joined string
	windowShown := false
	deadline := time.After(20 * time.Second)
	for !strings.Contains(joined, "bg-3\n") {
		select {
		case nev := <-live:
			ev := wire(t, nev)
			if c, _ := ev.Data["content"].(string); ev.Type == "window" && strings.Contains(c, "bg-2") && !strings.Contains(c, "bg-3") {
				windowShown = true
			}
			if ev.Type == "output" {
				if ev.Data["task_id"] == nil || ev.Data["call_id"] != nil || ev.Data["window_id"] != "bash_1" {
					t.Errorf("task output %v", ev.Data)
				}
				joined += ev.Data["text"].(string)
			}
		case <-deadline:
			t.Fatalf("task output so far %q", joined)
		}
	}
	if joined != "bg-1\nbg-2\nbg-3\n" {
		t.Errorf("task output %q", joined)
	}
	if !windowShown {
		t.Error("the task's window was not sent while the task ran")
	}
}

// A long command's output pieces do not push the turns' own events out of
// what a reconnecting client is replayed.
func TestLiveEventsKeepTheTurnInReplay(t *testing.T) {
	srv := fakeai.New(t)
	f, work := newFactory(t, srv)
	s := opened(t, f, work)
	s.publish(Turn{Turn: 1, Question: "q"})
	for i := 0; i < 3*keptEvents; i++ {
		s.publish(Output{CallID: "c", WindowID: "bash_1", Text: "x\n"})
	}
	all, _, stop := s.Subscribe(0)
	stop()
	if len(all) != keptEvents+1 || all[0].Type() != "turn" || all[1].ID != int64(2*keptEvents+2) {
		t.Errorf("replay of %d events, first %s", len(all), all[0].Type())
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID <= all[i-1].ID {
			t.Fatalf("replay out of order at %d", i)
		}
	}
}
