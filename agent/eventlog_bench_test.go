package agent

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// writeTurns writes a transcript of n turns, each a question, a reply
// running one command, its result and an answer: with events, as a session
// writes them now (the turn's events, its states within it not written);
// without, as an aci before event records did (turn, call and answer
// records).
func writeTurns(tb testing.TB, dir string, n int, events bool) string {
	tb.Helper()
	t, err := newTestLog(dir, "/w", "m", "")
	if err != nil {
		tb.Fatal(err)
	}
	out := strings.Repeat("some output line of a command\n", 30)
	id := int64(0)
	ev := func(format string, a ...any) {
		if events {
			id++
			if err := t.WriteEvent(id, []byte(fmt.Sprintf(format, a...))); err != nil {
				tb.Fatal(err)
			}
		}
	}
	old := func(r Record) {
		if !events {
			t.Write(r)
		}
	}
	for i := 1; i <= n; i++ {
		q := fmt.Sprintf("question %d: why does the build fail in package foo?", i)
		old(Record{Type: "turn", Turn: i})
		ev(`{"type":"turn","turn":%d,"question":""}`, i)
		t.Write(Record{Type: "message", Role: "user", Content: q})
		id++ // awaiting_model: not written
		ev(`{"type":"text","text":"Let me run the tests."}`)
		id++ // executing
		ev(`{"type":"tool_call","call_id":"call_%d_1","window_id":"bash_1","action_id":"run","params":{"command":"go test ./..."},"title":"run go test ./...","kind":"execute"}`, i)
		ev(`{"type":"tool_result","call_id":"call_%d_1","status":"ok","text":"exit 1, 2s","output":%q,"exit_code":1}`, i, out)
		old(Record{Type: "call", Call: &CallRecord{ID: fmt.Sprintf("call_%d_1", i), WindowID: "bash_1", ActionID: "run", Status: "ok"}})
		ev(`{"type":"window","id":"bash_1","app":"bash","title":"/w","content":%q}`, "$ go test ./...\n"+out)
		t.Write(Record{Type: "message", Role: "assistant", Turn: i, Content: fmt.Sprintf("Let me run the tests.\n<tool_call>{\"id\":\"call_%d_1\",\"window\":\"bash_1\",\"action\":\"run\",\"params\":{\"command\":\"go test ./...\"}}</tool_call>", i)})
		t.Write(Record{Type: "message", Role: "user", Content: "<tool_results>" + out + "</tool_results>"})
		id++ // awaiting_model
		ev(`{"type":"text","text":"The test of foo fails: a nil map."}`)
		t.Write(Record{Type: "message", Role: "assistant", Turn: i, Content: "The test of foo fails: a nil map."})
		old(Record{Type: "answer", Content: "The test of foo fails: a nil map."})
		ev(`{"type":"result","is_error":false,"outcome":"answered","result":"The test of foo fails: a nil map.","session_id":"s","num_steps":2,"duration_ms":2100,"usage":{"prompt_tokens":4000,"completion_tokens":80,"cached_tokens":3000},"total_cost_usd":null,"denials":[]}`)
		ev(`{"type":"state","state":"idle"}`)
	}
	t.Close()
	return t.Path
}

// BenchmarkResume200 replays a 200-turn transcript, with event records
// (as written now) and without (as written before).
func BenchmarkResume200(b *testing.B) {
	for _, events := range []bool{false, true} {
		b.Run(fmt.Sprintf("events=%v", events), func(b *testing.B) {
			path := writeTurns(b, b.TempDir(), 200, events)
			cpu := cpuTime()
			b.ResetTimer()
			for range b.N {
				s, _, err := replay(path)
				if err != nil || len(s.Asked) != 200 {
					b.Fatalf("%d turns, %v", len(s.Asked), err)
				}
			}
			b.StopTimer()
			// CPU time, for a machine shared with other work, where the
			// wall time counts waiting for a core.
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			fi, _ := os.Stat(path)
			b.ReportMetric(float64(fi.Size())/200, "bytes/turn")
		})
	}
}

// Replay of a written log gives its events, and each turn's question
// (its turn event is stored without it; the session puts it back).
func TestReplayGivesTheEvents(t *testing.T) {
	path := writeTurns(t, t.TempDir(), 3, true)
	s, _, err := replay(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Events) != 3*8 || s.LastEventID != 33 {
		t.Fatalf("%d events, last id %d", len(s.Events), s.LastEventID)
	}
	if got := string(s.Events[8].Data); got != `{"type":"turn","turn":2,"question":""}` {
		t.Errorf("turn event %s", got)
	}
	if len(s.Asked) != 3 || s.Asked[1] != (Asked{Text: "question 2: why does the build fail in package foo?", Typed: true}) {
		t.Errorf("questions %+v", s.Asked)
	}
}
