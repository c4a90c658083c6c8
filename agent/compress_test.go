package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

func openFile(target string) string {
	return fakeai.ToolCall(fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "file", "target": target}})
}

func TestCompressionBetweenTurns(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: openFile("notes.txt")},
		fakeai.Reply{Content: "first answer", PromptTokens: 150000},
		fakeai.Reply{Content: "## Goal\nSUMMARY-TEXT"},
		fakeai.Reply{Content: "second answer"},
	)
	a, _, events := newAgent(t, srv, true)
	a.conv.cfg.CompressTokens = 100000
	if _, err := a.Run(context.Background(), "FIRST-QUESTION"); err != nil {
		t.Fatal(err)
	}
	mustAnswer(t, a, "SECOND-QUESTION", "second answer")
	reqs := srv.Requests()
	summaryReq := reqs[2].Messages
	if last := summaryReq[len(summaryReq)-1].Content; !strings.Contains(last, "## Goal") || !strings.Contains(last, "SECOND-QUESTION") {
		t.Errorf("summary request does not ask for the summary with the question verbatim:\n%s", last)
	}
	next := reqs[3].Messages
	if !strings.Contains(next[0].Content, "SUMMARY-TEXT") {
		t.Errorf("system message lacks the summary")
	}
	for _, m := range next[1:] {
		if strings.Contains(m.Content, "FIRST-QUESTION") || strings.Contains(m.Content, "first answer") {
			t.Errorf("old message survived compression: %.80q", m.Content)
		}
	}
	if len(next) != 2 || !strings.Contains(next[1].Content, "SECOND-QUESTION") || !strings.Contains(next[1].Content, `<window id="file_1"`) {
		t.Errorf("want system + the question with the windows (file_1 still open), got %d messages", len(next))
	}
	var compressed bool
	for _, e := range *events {
		if e.Kind == EventCompressed && e.Compression.Before == 150000 && e.Compression.After > 0 {
			compressed = true
		}
	}
	if !compressed {
		t.Error("no EventCompressed with before/after figures")
	}
}

func TestCompressionMidTurn(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: openFile("a.txt"), PromptTokens: 500},
		fakeai.Reply{Content: openFile("b.txt"), PromptTokens: 9000},
		fakeai.Reply{Content: "SUMMARY-MID"},
		fakeai.Reply{Content: "finished after compression"},
	)
	a, _, _ := newAgent(t, srv, false)
	a.conv.cfg.CompressTokens = 5000
	mustAnswer(t, a, "do the thing", "finished after compression")
	last := srv.Requests()[3].Messages
	// The summary, then the last reply and its results verbatim, with every
	// open window rendered whole.
	if !strings.Contains(last[0].Content, "SUMMARY-MID") || len(last) != 4 || !strings.Contains(last[2].Content, "b.txt") ||
		!strings.Contains(last[3].Content, `<window id="file_1"`) || !strings.Contains(last[3].Content, `<window id="file_2"`) {
		t.Errorf("mid-turn compression did not continue from the summary: %d messages", len(last))
	}
}

func TestContextLengthExceededCompressesAndRetries(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: openFile("a.txt")},
		fakeai.Reply{Status: 400, ErrorCode: "context_length_exceeded", ErrorMessage: "This model's maximum context length is 8192 tokens."},
		fakeai.Reply{Content: "SUMMARY-OVERFLOW"},
		fakeai.Reply{Content: "answer after retry"},
	)
	a, _, _ := newAgent(t, srv, true)
	got, err := a.Run(context.Background(), "q")
	if err != nil || got != "answer after retry" {
		t.Fatalf("%q %v", got, err)
	}
	reqs := srv.Requests()
	if sum := reqs[2].Messages; len(sum) != 2 || !strings.Contains(sum[1].Content, "long messages cut") {
		t.Errorf("overflow summary should use the condensed transcript, got %d messages", len(sum))
	}
	if !strings.Contains(reqs[3].Messages[0].Content, "SUMMARY-OVERFLOW") {
		t.Error("retry lacks the summary")
	}
}

func TestUsagelessServerEstimates(t *testing.T) {
	a, _, _ := newAgent(t, fakeai.New(t), false)
	if got := estimateTokens([]Message{{Content: strings.Repeat("x", 4000)}}); got != 1002 {
		t.Errorf("estimate = %d", got)
	}
	_ = a
}

func TestCompactOnDemand(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "hello", PromptTokens: 4000}, fakeai.Reply{Content: "SUMMARY-FOCUS"})
	a, _, _ := newAgent(t, srv, true)
	if _, err := a.Compact(context.Background(), ""); err == nil {
		t.Error("compacting an empty history should say there is nothing to do")
	}
	a.Run(context.Background(), "hi")
	c, err := a.Compact(context.Background(), "the parser")
	if err != nil || c.Before != 4000 || c.After <= 0 || c.After >= c.Before {
		t.Fatalf("%+v %v", c, err)
	}
	if last := srv.Requests()[1].Messages; !strings.Contains(last[len(last)-1].Content, "focus on: the parser") {
		t.Error("focus not passed")
	}
}
