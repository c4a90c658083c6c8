package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// Every command of a batch has its output in what the model is sent next,
// whether the batch opened the window or not, ran more commands than the
// window keeps, or was followed by a rebase that renders the window whole.
func TestBatchOutputsAllReachModel(t *testing.T) {
	run := func(tag string) fakeai.Call {
		return call("bash_1", "run", map[string]any{"command": "seq 1 400 | sed s/^/" + tag + "/"})
	}
	runs := func(tags ...string) []fakeai.Call {
		var c []fakeai.Call
		for _, tag := range tags {
			c = append(c, run(tag))
		}
		return c
	}
	seven := []string{"R1x", "R2x", "R3x", "R4x", "R5x", "R6x", "R7x"}
	cases := []struct {
		name    string
		replies []string
		tags    []string
		rebase  bool // every request finds the cache expired: rebases are free
	}{
		{"opened in the batch", []string{fakeai.ToolCall(append([]fakeai.Call{openCall("bash", "")}, runs("AAA", "BBB")...)...)}, []string{"AAA", "BBB"}, false},
		{"open window", []string{fakeai.ToolCall(openCall("bash", "")), fakeai.ToolCall(runs("AAA", "BBB")...)}, []string{"AAA", "BBB"}, false},
		{"after a rebase", []string{fakeai.ToolCall(openCall("bash", "")), fakeai.ToolCall(runs("OLD")...), fakeai.ToolCall(runs("AAA", "BBB")...)}, []string{"AAA", "BBB"}, true},
		{"more runs than kept", []string{fakeai.ToolCall(openCall("bash", "")), fakeai.ToolCall(runs(seven...)...)}, seven, false},
		{"more runs than kept, rebased", []string{fakeai.ToolCall(openCall("bash", "")), fakeai.ToolCall(runs("OLD")...), fakeai.ToolCall(runs(seven...)...)}, seven, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeai.New(t)
			for _, r := range append(tc.replies, "done") {
				srv.Push(fakeai.Reply{Content: r})
			}
			a, _, _ := newAgent(t, srv, false)
			if tc.rebase {
				now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
				a.conv.cache = newCacheLedger(time.Minute, func() time.Time { now = now.Add(time.Hour); return now })
			}
			if _, err := a.Run(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			if tc.rebase && a.Stats().Rebases == 0 {
				t.Fatal("no rebase happened")
			}
			reqs := srv.Requests()
			all := reqs[len(reqs)-1].Text()
			for _, tag := range tc.tags {
				for _, line := range []string{tag + "1\n", tag + "400\n"} {
					if !strings.Contains(all, line) {
						t.Errorf("the last request lacks %q of %s's output", strings.TrimSpace(line), tag)
					}
				}
			}
		})
	}
}
