//go:build unix

package ui

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

// rawMessages is a request's messages as sent, each message's bytes.
func rawMessages(t *testing.T, req fakeai.Request) []json.RawMessage {
	t.Helper()
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("request %d: %v", req.N, err)
	}
	return body.Messages
}

// messagesBytes is the request's messages array as sent.
func messagesBytes(t *testing.T, req fakeai.Request) []byte {
	t.Helper()
	var body struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("request %d: %v", req.N, err)
	}
	return body.Messages
}

// cachedPrefix is docs/protocol.md §3's cached part of request i: the longest
// common prefix of its serialized messages with any earlier request's.
func cachedPrefix(t *testing.T, reqs []fakeai.Request, i int) int {
	t.Helper()
	cur, best := messagesBytes(t, reqs[i]), 0
	for _, r := range reqs[:i] {
		prev := messagesBytes(t, r)
		n := 0
		for n < len(cur) && n < len(prev) && cur[n] == prev[n] {
			n++
		}
		best = max(best, n)
	}
	return best
}

func TestREPLRewindFilesAndConversation(t *testing.T) {
	t.Parallel()
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(open("file", "a.txt"), edit("file_1", "one", "ONE"))},
		fakeai.Reply{Content: "turn one done"},
		fakeai.Reply{Content: fakeai.ToolCall(open("file", "b.txt"), edit("file_2", "bee", "BEE"))},
		fakeai.Reply{Content: "turn two done"},
		fakeai.Reply{Content: "rewound answer"},
	)
	s := startREPL(t, srv, nil)
	a, b := filepath.Join(s.work, "a.txt"), filepath.Join(s.work, "b.txt")
	testfs.File(t, a, "one\n")
	testfs.File(t, b, "bee\n")
	s.waitPrompt()
	s.exchange("change a please", "turn one done")
	s.exchange("now change b", "turn two done")
	if readFile(t, a) != "ONE\n" || readFile(t, b) != "BEE\n" {
		t.Fatalf("the turns did not edit the files: %q %q", readFile(t, a), readFile(t, b))
	}

	// Esc Esc at the empty prompt opens the list, newest first; Esc Esc
	// again leaves it.
	s.keys("Escape", "Escape")
	scr := s.waitFor("Rewind to just before which question?")
	if i, j := strings.Index(scr, "2  now change b"), strings.Index(scr, "1  change a please"); i < 0 || j < 0 || i > j {
		t.Fatalf("the questions are not listed newest first:\n%s", scr)
	}
	s.waitFor("question [2]")
	s.keys("Escape", "Escape")
	s.waitFor("rewind cancelled")
	s.waitPrompt()

	s.typeLine("/rewind")
	s.waitUntil("the list again", func(scr string) bool { return strings.Count(scr, "question [2]") == 2 })
	s.typeLine("1")
	s.waitFor("restore: Enter files and conversation")
	s.typeLine("")
	s.waitFor("back before question 1")
	// The question is back in the input line, to edit.
	s.waitUntil("the question back at the prompt", func(scr string) bool { return lastLine(scr) == "› change a please" })
	if got := readFile(t, a); got != "one\n" {
		t.Errorf("a.txt after the rewind = %q", got)
	}
	if got := readFile(t, b); got != "bee\n" {
		t.Errorf("b.txt after the rewind = %q", got)
	}
	scr = s.screen()
	if !strings.Contains(scr, "files: restored a.txt, b.txt") {
		t.Errorf("the rewind did not say what it restored:\n%s", scr)
	}
	if !strings.Contains(scr, "outside the workspace") || !strings.Contains(scr, "not tracked") {
		t.Errorf("the rewind does not warn that commands' changes outside the workspace are not tracked:\n%s", scr)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Fatalf("the rewind asked the model: %d requests", n)
	}

	// Sent again as it is: the conversation went back before it, and the
	// request continues an earlier one byte for byte (the cache hits).
	s.keys("Enter")
	s.waitFor("rewound answer")
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if mentions(last, "now change b") || mentions(last, "turn one done") {
		t.Errorf("the rewound conversation still holds the later turns")
	}
	now, first := rawMessages(t, last), rawMessages(t, reqs[0])
	if len(now) != len(first) {
		t.Fatalf("the rewound request has %d messages, the first request %d", len(now), len(first))
	}
	for i := range now[:len(now)-1] {
		if !bytes.Equal(now[i], first[i]) {
			t.Errorf("message %d differs from the first request's:\n%s\n%s", i, now[i], first[i])
		}
	}
	cached, size := cachedPrefix(t, reqs, len(reqs)-1), len(messagesBytes(t, last))
	if cached*10 < size*9 {
		t.Errorf("cached %d of %d bytes after the rewind", cached, size)
	}
	t.Logf("request after the rewind: %d of %d message bytes cached (%.1f%%)", cached, size, 100*float64(cached)/float64(size))
	s.waitPrompt()
	s.exit()
	files := s.transcripts()
	if len(files) != 2 {
		t.Errorf("transcripts %v, want the session and the rewound branch", files)
	}
}
