//go:build unix

package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A slow command's first lines show while it runs, under its action line,
// and give way to the usual preview when it ends: the model's command and
// the person's own !cmd alike.
func TestREPLShowsOutputAsItRuns(t *testing.T) {
	t.Parallel()
	const slow = "for i in 1 2 3 4 5; do echo tick-$i; sleep 1; done"
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(open("bash", ""), run("bash_1", slow))},
		fakeai.Reply{Content: "counted"},
	)
	s := readyREPL(t, srv, nil)
	for _, typed := range []string{"count", "!" + slow} {
		before := s.screen()
		more := func(scr, text string) bool { return strings.Count(scr, text) > strings.Count(before, text) }
		start := time.Now()
		s.typeLine(typed)
		scr := s.waitUntil("tick-2 while it runs", func(scr string) bool { return more(scr, "│ tick-2") })
		if more(scr, "tick-5") || time.Since(start) > 4500*time.Millisecond {
			t.Fatalf("%s: the output showed only at the end (%s):\n%s", typed, time.Since(start), scr)
		}
		if !strings.Contains(scr, "running") {
			t.Errorf("%s: no spinner under the live tail:\n%s", typed, scr)
		}
		s.waitUntil("tick-5", func(scr string) bool { return more(scr, "│ tick-5") })
		s.waitPrompt()
		// The tail was replaced by the preview: each line once.
		if n := strings.Count(s.screen(), "│ tick-2") - strings.Count(before, "│ tick-2"); n != 1 {
			t.Errorf("%s: tick-2 shows %d more times:\n%s", typed, n, s.screen())
		}
	}
}
