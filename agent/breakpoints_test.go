package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

func TestNeedsBreakpoints(t *testing.T) {
	for model, want := range map[string]bool{
		"claude-sonnet-4-5": true, "anthropic/claude-sonnet-4.5": true, "us.anthropic.claude-opus-4-1-v1:0": true,
		"gpt-5-mini": false, "deepseek/deepseek-chat": false, "google/gemini-2.5-pro": false, "qwen3:8b": false,
	} {
		if got := NeedsBreakpoints(model); got != want {
			t.Errorf("NeedsBreakpoints(%q) = %v, want %v", model, got, want)
		}
	}
}

func TestBreakpointsPlacement(t *testing.T) {
	sys, u, a := Message{Role: "system", Content: "s"}, Message{Role: "user", Content: "u"}, Message{Role: "assistant", Content: "a"}
	cases := []struct {
		name string
		msgs []Message
		want []int
	}{
		{"first request", []Message{sys, u}, []int{0, 1}},
		{"second", []Message{sys, u, a, u}, []int{0, 1, 3}},
		{"third", []Message{sys, u, a, u, a, u}, []int{0, 3, 5}},
		{"steered: two user messages after the reply", []Message{sys, u, a, u, u}, []int{0, 1, 4}},
		{"no system message", []Message{u, a, u}, []int{0, 2}},
		{"empty", nil, nil},
	}
	for _, c := range cases {
		if got := breakpoints(c.msgs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: breakpoints = %v, want %v", c.name, got, c.want)
		}
	}
}

// marksOf lists the indexes of a request's messages that carry a
// cache_control mark, failing on any other shape of mark.
func marksOf(t testing.TB, r fakeai.Request) []int {
	var at []int
	msgs, _ := r.Raw["messages"].([]any)
	for i, m := range msgs {
		parts, ok := m.(map[string]any)["content"].([]any)
		if !ok {
			continue
		}
		for _, p := range parts {
			if cc, ok := p.(map[string]any)["cache_control"]; ok {
				if !reflect.DeepEqual(cc, map[string]any{"type": "ephemeral"}) {
					t.Fatalf("request %d message %d: cache_control %v", r.N, i, cc)
				}
				at = append(at, i)
			}
		}
	}
	return at
}

// TestBreakpointsLongSession plays the fifty-step session on a Claude
// model: every request carries at most four marks, the system message and
// the last message among them, and the prefix up to the previous request's
// last mark comes back unchanged at a mark of its own, except where a
// rebase rewrote the history. On an OpenAI model no request is marked.
func TestBreakpointsLongSession(t *testing.T) {
	e := runEconomyModel(t, fiftySteps(), "anthropic/claude-sonnet-4.5")
	stable, broken := 0, 0
	for i, r := range e.reqs {
		marks := marksOf(t, r)
		if len(marks) == 0 || len(marks) > maxBreakpoints || marks[0] != 0 || marks[len(marks)-1] != len(r.Messages)-1 {
			t.Fatalf("request %d: marks %v over %d messages", r.N, marks, len(r.Messages))
		}
		if i == 0 {
			continue
		}
		prev := e.reqs[i-1]
		pm := marksOf(t, prev)
		last := pm[len(pm)-1]
		if last < len(r.Messages) && reflect.DeepEqual(prev.Messages[:last+1], r.Messages[:last+1]) {
			stable++
			if !containsInt(marks, last) {
				t.Errorf("request %d: the previous request's last mark (message %d) is not marked again: %v", r.N, last, marks)
			}
		} else {
			broken++
		}
	}
	t.Logf("%d requests: marked prefix read back at a mark %d times, rewritten (rebase) %d times; %d rebases", len(e.reqs), stable, broken, e.rebases)
	if broken > e.rebases {
		t.Errorf("the marked prefix changed %d times, more than the %d rebases", broken, e.rebases)
	}

	plain := runEconomyModel(t, tenSteps(), "gpt-5-mini")
	for _, r := range plain.reqs {
		if bytes.Contains(r.Body, []byte("cache_control")) {
			t.Fatalf("request %d to gpt-5-mini carries cache_control", r.N)
		}
	}
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// anthropicBill is what a session costs billed as Anthropic bills, in the
// units runEconomy counts (bytes of the messages' JSON): a prefix is cached
// only up to a marked message; a request reads the longest prefix an
// earlier request wrote at a mark, found at a mark or up to lookback
// messages before one, at 0.1×; what lies between it and the last mark is
// written at 1.25×; the rest is input at 1×. Without marks, all is input.
// Anthropic's minimum cacheable length and five-minute expiry are left out
// (every prefix here is above the minimum; the steps are seconds apart).
type bill struct{ input, write, read, cost float64 }

const lookback = 20

func anthropicBill(reqs []fakeai.Request, marksFor func(fakeai.Request) []int) bill {
	var b bill
	cached := map[string]bool{}
	for _, r := range reqs {
		sizes := make([]int, len(r.Messages))
		keys := make([]string, len(r.Messages))
		for j := range r.Messages {
			data, _ := json.Marshal(r.Messages[:j+1])
			sizes[j], keys[j] = len(data), string(data)
		}
		total, _ := json.Marshal(r.Messages)
		marks := marksFor(r)
		if len(marks) == 0 {
			b.input += float64(len(total))
			continue
		}
		best := -1
		for _, m := range marks {
			for j := m; j >= 0 && j >= m-lookback; j-- {
				if cached[keys[j]] {
					best = max(best, j)
					break
				}
			}
		}
		read := 0
		if best >= 0 {
			read = sizes[best]
		}
		last := marks[len(marks)-1]
		b.read += float64(read)
		b.write += float64(max(sizes[last]-read, 0))
		b.input += float64(len(total) - sizes[last])
		for _, m := range marks {
			cached[keys[m]] = true
		}
	}
	b.cost = b.input + 1.25*b.write + 0.1*b.read
	return b
}

// lastTwo is the placement crush uses: the system message and the last two
// messages, whatever their roles.
func lastTwo(r fakeai.Request) []int {
	n := len(r.Messages)
	at := []int{0}
	for _, i := range []int{n - 2, n - 1} {
		if i > 0 {
			at = append(at, i)
		}
	}
	return at
}

// encodeWith re-encodes a request's messages with marks at the given
// places, unmarked messages as strings or, with parts, as text parts.
func encodeWith(r fakeai.Request, marks []int, parts bool) []byte {
	var msgs []chatMessage
	for i, m := range r.Messages {
		c := wireContent(Message{Role: m.Role, Content: m.Content}, parts || containsInt(marks, i), containsInt(marks, i))
		msgs = append(msgs, chatMessage{Role: m.Role, Content: c})
	}
	data, _ := json.Marshal(msgs)
	return data
}

// bytesKept is the mean share of each request's body that the next one
// repeats byte for byte.
func bytesKept(reqs []fakeai.Request, marksFor func(fakeai.Request) []int, parts bool) float64 {
	var sum float64
	for i := 1; i < len(reqs); i++ {
		a, b := encodeWith(reqs[i-1], marksFor(reqs[i-1]), parts), encodeWith(reqs[i], marksFor(reqs[i]), parts)
		sum += float64(commonPrefix(a, b)) / float64(len(a))
	}
	return sum / float64(len(reqs)-1)
}

// TestAnthropicBill measures the token-economy sessions on a Claude model
// billed as Anthropic bills, with and without breakpoints, against the
// OpenAI-style figure (§3: uncached + 0.1 × cached, automatic prefix cache)
// for the same requests. Target: within 10% of the OpenAI-style figure.
// Run with -v for the figures.
func TestAnthropicBill(t *testing.T) {
	fmt.Printf("%-16s %10s %12s %12s %7s %7s %12s %7s   %s\n", "session", "openai", "claude-none", "claude-marks", "ratio", "floor", "crush-style", "ratio",
		"bytes kept: parts (sent) / strings unmarked / crush parts / crush strings")
	for _, s := range []scriptedSession{tenSteps(), fiveFiles(), fiveInView(), fiftySteps()} {
		e := runEconomyModel(t, s, "anthropic/claude-sonnet-4.5")
		ours := func(r fakeai.Request) []int { return marksOf(t, r) }
		marked := anthropicBill(e.reqs, ours)
		none := anthropicBill(e.reqs, func(fakeai.Request) []int { return nil })
		crush := anthropicBill(e.reqs, lastTwo)
		ratio := marked.cost / e.cost
		// The floor: every byte the OpenAI-style cache missed written once
		// at 1.25×, every byte it hit read at 0.1×.
		floor := 1.25*float64(e.bytes-e.cached) + 0.1*float64(e.cached)
		line := fmt.Sprintf("%-16s %10.0f %12.0f %12.0f %6.2f× %6.2f× %12.0f %6.2f×   %.0f%% / %.0f%% / %.0f%% / %.0f%%", s.name, e.cost, none.cost, marked.cost, ratio, floor/e.cost,
			crush.cost, crush.cost/e.cost, 100*bytesKept(e.reqs, ours, true), 100*bytesKept(e.reqs, ours, false), 100*bytesKept(e.reqs, lastTwo, true), 100*bytesKept(e.reqs, lastTwo, false))
		fmt.Println(line)
		t.Log(line)
		// The target, within 10% of the OpenAI-style figure, lies
		// below the floor on these sessions (new bytes are 55–65% of the
		// OpenAI-style cost, and each is written at 1.25×): the breakpoints
		// must bring the bill within 3% of the floor.
		if marked.cost > 1.03*floor {
			t.Errorf("%s: the Claude bill with breakpoints is %.2f× the OpenAI-style figure, the floor %.2f×", s.name, ratio, floor/e.cost)
		}
		if marked.cost >= none.cost {
			t.Errorf("%s: breakpoints save nothing (%.0f vs %.0f)", s.name, marked.cost, none.cost)
		}
	}
}
