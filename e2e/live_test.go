package e2e

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
)

// stream-json read line by line as it comes, each line with the time it
// arrived: a slow command's output arrives while it runs, in pieces spread
// over its run, all before its tool_result, and the pieces join to its
// output.
func TestStreamJSONOutputAsItRuns(t *testing.T) {
	dir := t.TempDir()
	const slow = "for i in 1 2 3 4 5; do echo tick-$i; sleep 1; done"
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}), call("bash_1", "run", map[string]any{"command": slow}))},
		fakeai.Reply{Content: "counted"},
	)
	cmd := testbin.Command(t, dir, baseEnv(t, srv), "--output-format", "stream-json", "-p", "count")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type line struct {
		obj map[string]any
		at  time.Time
	}
	var lines []line
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		lines = append(lines, line{m, time.Now()})
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("aci: %v", err)
	}
	var joined strings.Builder
	var outputs []line
	var call string
	var result time.Time
	for _, l := range lines {
		switch l.obj["type"] {
		case "tool_call":
			if l.obj["window_id"] == "bash_1" {
				call = l.obj["call_id"].(string)
			}
		case "output":
			if l.obj["call_id"] != call || l.obj["window_id"] != "bash_1" {
				t.Errorf("output %v, want call %s", l.obj, call)
			}
			if !result.IsZero() {
				t.Errorf("output after the tool_result: %v", l.obj)
			}
			outputs = append(outputs, l)
			joined.WriteString(l.obj["text"].(string))
		case "tool_result":
			if l.obj["call_id"] == call {
				result = l.at
			}
		}
	}
	if joined.String() != "tick-1\ntick-2\ntick-3\ntick-4\ntick-5\n" {
		t.Errorf("the pieces join to %q", joined.String())
	}
	if len(outputs) < 4 {
		t.Fatalf("%d output lines, want one per tick or so", len(outputs))
	}
	first, last := outputs[0].at, outputs[len(outputs)-1].at
	if result.Sub(first) < 3*time.Second || last.Sub(first) < 3*time.Second {
		t.Errorf("the output did not come as it ran: first %s before the result, spread over %s", result.Sub(first), last.Sub(first))
	}
	for i, o := range outputs {
		t.Logf("output %d at +%s: %q", i, o.at.Sub(first).Round(time.Millisecond), o.obj["text"])
	}
}
