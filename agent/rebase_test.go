package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/windows"
)

// A family of sessions for the rebase decision: each is played with
// rebases on and off, on a clock that moves stepGap per request and jumps
// over the idle gaps, and priced by the cost formula with a cache that
// forgets what was not used within DefaultCacheTTL.

// stepGap is how long one model request and its actions take.
const stepGap = 5 * time.Second

// turnScript is one question, the replies that answer it, and how long the
// person was away before asking it.
type turnScript struct {
	idle     time.Duration
	question string
	replies  []string
}

// familySession is a session of several turns; pauses makes the clock
// jump after the given request (1-based), as a long command would.
type familySession struct {
	name     string
	files    int
	window   int64 // the context window the server reports (llama.cpp); 0: none
	compress int64 // ACI_COMPRESS_TOKENS; 0: none
	turns    []turnScript
	pauses   map[int]time.Duration
}

func oneTurn(s scriptedSession) familySession {
	return familySession{name: s.name, files: s.files, turns: []turnScript{{question: s.question, replies: s.replies}}}
}

// shortRead opens a shell and three files and answers at once: it ends
// right after a large read.
func shortRead() familySession {
	return familySession{name: "short-read", files: 3, turns: []turnScript{{
		question: "What do the helpers in calc do?",
		replies: []string{
			fakeai.ToolCall(openCall("file", "calc/f1.go"), openCall("bash", "")),
			fakeai.ToolCall(viewCall(1, 100, 160)),
			fakeai.ToolCall(openCall("file", "calc/f2.go"), openCall("file", "calc/f3.go")),
			"They add offsets to x.",
		}}}}
}

// heldOut reads five files whole, edits two, runs the tests twice and
// closes nothing (the session of issue 21).
func heldOut() familySession {
	s := fiveFiles()
	s.name = "10-step-held-out"
	return oneTurn(s)
}

// fileWork works through files from..to: open, views, five edits, tests,
// and closes each file when done if closing.
func fileWork(from, to int, closing bool) []string {
	var r []string
	for f := from; f <= to; f++ {
		r = append(r,
			fmt.Sprintf("Now f%d.go.\n", f)+fakeai.ToolCall(openCall("file", fmt.Sprintf("calc/f%d.go", f))),
			fakeai.ToolCall(viewCall(f, 40, 80)),
			fakeai.ToolCall(editCall(f, 1)),
			fakeai.ToolCall(viewCall(f, 140, 170)),
			fakeai.ToolCall(editCall(f, 2), testRun),
			fakeai.ToolCall(editCall(f, 3)),
			fakeai.ToolCall(viewCall(f, 240, 270)),
			fakeai.ToolCall(editCall(f, 4)),
			fakeai.ToolCall(editCall(f, 5), testRun))
		if closing {
			r = append(r, fakeai.ToolCall(call(fmt.Sprintf("file_%d", f), "close", nil), testRun))
		}
	}
	return r
}

// workTurns makes n turns of 50 steps, each on its own four files.
func workTurns(n int, closing bool, idle time.Duration) []turnScript {
	var turns []turnScript
	for t := 0; t < n; t++ {
		var r []string
		if t == 0 {
			r = append(r, "A shell first.\n"+fakeai.ToolCall(openCall("bash", "")))
		}
		r = append(r, fileWork(4*t+1, 4*t+4, closing)...)
		for len(r) < 49 {
			r = append(r, fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "go vet ./..."})))
		}
		r = append(r, fmt.Sprintf("Files f%d to f%d are fixed; go test passes.", 4*t+1, 4*t+4))
		ts := turnScript{question: fmt.Sprintf("Fix the offsets in f%d.go to f%d.go, testing as you go.", 4*t+1, 4*t+4), replies: r}
		if t > 0 {
			ts.idle = idle
		}
		turns = append(turns, ts)
	}
	return turns
}

func rebaseFamily() []familySession {
	tenIdle := oneTurn(tenSteps())
	tenIdle.name = "10-step, idle 10 min, 2 turns"
	tenIdle.turns = append(tenIdle.turns, turnScript{idle: 10 * time.Minute, question: "Run the tests once more.",
		replies: []string{fakeai.ToolCall(testRun), fakeai.ToolCall(viewCall(1, 1, 40)), "They pass."}})
	fiftyPause := oneTurn(fiftySteps())
	fiftyPause.name = "50-step, 6 min command at step 25"
	fiftyPause.pauses = map[int]time.Duration{25: 6 * time.Minute}
	return []familySession{
		shortRead(),
		heldOut(),
		oneTurn(fiveInView()),
		oneTurn(fiveInViewNarrowed()),
		oneTurn(tenSteps()),
		tenIdle,
		oneTurn(fiftySteps()),
		{name: "50-step, nothing closed", files: 4, turns: workTurns(1, false, 0)},
		fiftyPause,
		{name: "200-step, closing", files: 16, turns: workTurns(4, true, 0)},
		{name: "200-step, nothing closed", files: 16, turns: workTurns(4, false, 0)},
		{name: "200-step, idle 10 min between turns", files: 16, turns: workTurns(4, true, 10*time.Minute)},
	}
}

// familyCost is what one run of a family session cost.
type familyCost struct {
	requests, rebases, maxRequest int
	maxWindows                    int // bytes of renderings in the largest such request
	firstRebase                   int // the request that followed the first rebase
	compressions                  int // summary requests
	cost                          float64
}

// runFamily plays s through the real agent, rebasing or not.
func runFamily(tb testing.TB, s familySession, rebase bool) familyCost {
	dir := economyWorkspace(tb, s.files)
	srv := fakeai.New(tb)
	for _, t := range s.turns {
		for _, r := range t.replies {
			srv.Push(fakeai.Reply{Content: r})
		}
	}
	if s.window > 0 {
		srv.SetInfo(fakeai.Info{Models: []string{"gpt-5-mini"}, LlamaCppNCtx: s.window})
	}
	wm := windows.NewManager(windows.Env{Workdir: dir}, windows.FileApp, windows.BashApp)
	defer wm.CloseAll()
	client := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, APIKey: "k", Model: "gpt-5-mini", Stream: false})
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	var times []time.Time
	cfg := Config{BasePrompt: readSystemPrompt(tb), Hints: prompt.Hints{Workdir: dir, OS: "linux/amd64", Date: "2026-11-22"},
		MaxSteps: 100, Clock: func() time.Time { return now }, CompressTokens: s.compress}
	var a *Agent
	firstRebase := 0
	a = New(client, wm, cfg, func(e Event) {
		if e.Kind == EventUsage {
			times = append(times, now) // when the request was read
			now = now.Add(stepGap + s.pauses[len(times)])
			if firstRebase == 0 && a.Stats().Rebases > 0 {
				firstRebase = len(times)
			}
		}
	})
	a.conv.cache.off = !rebase
	for _, t := range s.turns {
		now = now.Add(t.idle)
		if _, err := a.Run(context.Background(), t.question); err != nil {
			tb.Fatalf("%s: %v", s.name, err)
		}
	}
	c := familyCost{rebases: a.Stats().Rebases, firstRebase: firstRebase}
	var bodies [][]byte
	for i, r := range srv.Requests() {
		body, _ := json.Marshal(r.Messages)
		cached := 0
		for j, prev := range bodies {
			if times[i].Sub(times[j]) <= DefaultCacheTTL {
				cached = max(cached, commonPrefix(prev, body))
			}
		}
		bodies = append(bodies, body)
		c.cost += float64(len(body)-cached) + cachedPrice*float64(cached)
		c.maxRequest = max(c.maxRequest, len(body))
		c.maxWindows = max(c.maxWindows, windowBytes(r))
		if last := r.Last(); strings.Contains(last, "about to be compressed") {
			c.compressions++
		}
	}
	c.requests = len(bodies)
	return c
}

// windowBytes counts the bytes of a request's <windows> blocks: what
// rebases keep bounded (the messages' own text grows until a compression).
func windowBytes(r fakeai.Request) int {
	n := 0
	for _, m := range r.Messages {
		rest := m.Content
		for {
			i := strings.Index(rest, "<windows>")
			if i < 0 {
				break
			}
			j := strings.Index(rest[i:], "</windows>")
			if j < 0 {
				break
			}
			n += j + len("</windows>")
			rest = rest[i+j:]
		}
	}
	return n
}

// No session of the family costs more than 1.05× itself with rebases off,
// and sessions of 50 steps or more keep their renderings bounded. The
// test plays the sessions of up to 50 steps; BenchmarkRebaseRegret plays
// the whole family, the 200-step sessions too, and prints the table.
func TestRebaseRegretBounded(t *testing.T) {
	var short []familySession
	for _, s := range rebaseFamily() {
		if !strings.HasPrefix(s.name, "200-step") {
			short = append(short, s)
		}
	}
	t.Log(checkRegret(t, short))
}

// BenchmarkRebaseRegret plays every session of the family with rebases on
// and off (each 200-step session plays 400 steps) and reports the cost
// ratio of the longest; the table goes to the log (-v).
func BenchmarkRebaseRegret(b *testing.B) {
	for b.Loop() {
		b.Log(checkRegret(b, rebaseFamily()))
	}
}

// checkRegret plays family with rebases on and off, fails tb for a
// session past the bounds, and returns the table of what each cost.
func checkRegret(tb testing.TB, family []familySession) string {
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-38s %5s %7s %9s %9s %6s %8s %8s %8s\n", "session", "reqs", "rebases", "cost", "no-rebase", "ratio", "largest", "windows", "no-rebase")
	for i := 0; i < len(family); i++ {
		s := family[i]
		on, off := runFamily(tb, s, true), runFamily(tb, s, false)
		if s.name == "50-step" {
			// The worst case of a rebase: the session ends right after it.
			cut := familySession{name: "50-step, ends at its first rebase", files: s.files, turns: []turnScript{{question: s.turns[0].question,
				replies: append(append([]string(nil), s.turns[0].replies[:on.firstRebase-1]...), "Done for now.")}}}
			family = append(family[:i+1], append([]familySession{cut}, family[i+1:]...)...)
		}
		ratio := on.cost / off.cost
		fmt.Fprintf(&table, "%-38s %5d %7d %9.0f %9.0f %6.3f %8d %8d %8d\n", s.name, on.requests, on.rebases, on.cost, off.cost, ratio, on.maxRequest, on.maxWindows, off.maxRequest)
		if ratio > 1.05 {
			tb.Errorf("%s: costs %.3f× itself with rebases off, want ≤ 1.05×", s.name, ratio)
		}
		if on.requests >= 50 && on.maxWindows >= 48<<10 {
			tb.Errorf("%s: %d bytes of renderings in one request, want < %d", s.name, on.maxWindows, 48<<10)
		}
		if b, ok := tb.(*testing.B); ok && i == len(family)-1 {
			b.ReportMetric(ratio, "cost-ratio")
		}
	}
	return table.String()
}

// After an idle gap longer than the cache's lifetime the next request is
// rebased (it costs nothing more); after a shorter one it is not, and the
// request repeats the previous one.
func TestIdleGapRebasesForFree(t *testing.T) {
	for _, tc := range []struct {
		idle    time.Duration
		ttl     time.Duration
		rebased bool
	}{
		{4 * time.Minute, 0, false},
		{6 * time.Minute, 0, true},
		{6 * time.Minute, 10 * time.Minute, false},
		{time.Hour, -1, false},
	} {
		srv := fakeai.New(t)
		a, dir, _ := newAgent(t, srv, false)
		for i := 1; i <= 3; i++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat(fmt.Sprintf("line %d\n", i), 200)), 0o644)
		}
		now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		a.conv.cache = newCacheLedger(tc.ttl, func() time.Time { return now })
		srv.Push(fakeai.Reply{Content: openFile("f1.txt")}, fakeai.Reply{Content: fakeai.ToolCall(viewCall(1, 150, 200))}, fakeai.Reply{Content: "read"})
		if _, err := a.Run(context.Background(), "read f1"); err != nil {
			t.Fatal(err)
		}
		now = now.Add(tc.idle)
		srv.Push(fakeai.Reply{Content: "again"})
		if _, err := a.Run(context.Background(), "and now?"); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		prefix := isPrefix(reqs[len(reqs)-2], reqs[len(reqs)-1])
		if rebased := a.Stats().Rebases == 1; rebased != tc.rebased || prefix == tc.rebased {
			t.Errorf("idle %v, lifetime %v: %d rebases, prefix kept %v; want rebased %v", tc.idle, tc.ttl, a.Stats().Rebases, prefix, tc.rebased)
		}
	}
}

// The render budget follows the context window the server reports: with
// none known only the rent-or-buy rule rebases; with a window the
// session would outgrow, a rebase cuts back what is superseded before the
// compression threshold, and no compression is needed.
func TestRebaseBudgetFollowsWindow(t *testing.T) {
	for _, tc := range []struct {
		window  int64
		rebased bool
	}{
		{0, false},
		{200_000, false},
		{40_000, true},
	} {
		s := oneTurn(fiveInViewNarrowed())
		s.window = tc.window
		c := runFamily(t, s, true)
		if (c.rebases > 0) != tc.rebased || c.compressions > 0 {
			t.Errorf("window %d: %d rebases, %d compressions; want rebased %v and no compression", tc.window, c.rebases, c.compressions, tc.rebased)
		}
		if limit := int(float64(tc.window) * compressShare * 4); tc.window > 0 && c.maxRequest > limit {
			t.Errorf("window %d: a request of %d bytes, past the compression threshold (%d bytes)", tc.window, c.maxRequest, limit)
		}
	}
}

// A request past the compression threshold that a rebase alone brings
// back under is rebased, not compressed: nothing is summarised away.
func TestRebaseInsteadOfCompression(t *testing.T) {
	s := oneTurn(fiveInView())
	s.compress = 26_000
	c := runFamily(t, s, true)
	if c.rebases == 0 || c.compressions > 0 {
		t.Errorf("threshold %d tokens, largest request %d bytes: %d rebases, %d compressions; want a rebase and no compression", s.compress, c.maxRequest, c.rebases, c.compressions)
	}
}
