package ui

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

func TestJournalUndoWalksBackTurnByTurn(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "a0")
	j := windows.NewUndoJournal()
	// Turn 1 changes a twice (one snapshot) and creates b.
	j.Record(a)
	write(a, "a1")
	j.Record(a)
	write(a, "a2")
	j.Record(b)
	write(b, "b1")
	j.EndTurn()
	j.EndTurn() // a turn that changed nothing is not a turn to undo
	// Turn 2 changes b.
	j.Record(b)
	write(b, "b2")
	j.EndTurn()

	u, err := j.Undo()
	if err != nil || len(u.Restored) != 1 || u.Restored[0] != b {
		t.Fatalf("undo 1: %+v %v", u, err)
	}
	if got, _ := os.ReadFile(b); string(got) != "b1" {
		t.Errorf("b after undo 1: %q", got)
	}
	u, err = j.Undo()
	if err != nil || len(u.Restored) != 1 || len(u.Removed) != 1 {
		t.Fatalf("undo 2: %+v %v", u, err)
	}
	if got, _ := os.ReadFile(a); string(got) != "a0" {
		t.Errorf("a after undo 2: %q", got)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Errorf("created b not removed: %v", err)
	}
	if _, err := j.Undo(); err != windows.ErrNothingToUndo {
		t.Errorf("undo 3: %v", err)
	}
	if note := undoNote(u, dir); !strings.Contains(note, "restored a") || !strings.Contains(note, "removed b") {
		t.Errorf("model note: %q", note)
	}
}

func TestJournalRefusesAClobber(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.WriteFile(a, []byte("mine"), 0o600)
	j := windows.NewUndoJournal()
	j.Record(a)
	os.WriteFile(a, []byte("aci's"), 0o600)
	j.EndTurn()
	os.WriteFile(a, []byte("someone else's"), 0o600)
	u, err := j.Undo()
	if err != nil || len(u.Refused) != 1 || len(u.Restored) != 0 {
		t.Fatalf("undo: %+v %v", u, err)
	}
	if got, _ := os.ReadFile(a); string(got) != "someone else's" {
		t.Errorf("clobbered: %q", got)
	}
	if s := strings.Join(undoSummary(u, dir), "\n"); !strings.Contains(s, "changed since by someone else: a") {
		t.Errorf("summary: %s", s)
	}
	if undoNote(u, dir) != "" {
		t.Errorf("the model is told of an undo that restored nothing")
	}
}

func TestBlockEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"a paragraph", -1},
		{"a paragraph\n", -1},
		{"a paragraph\n\n", 12},
		{"\n\n", -1},
		{"```go\ncode\n\nmore\n", -1},
		{"```go\ncode\n\nmore\n```\nafter", 21},
		{"text\n~~~~\nx\n~~~\n~~~~\n", 21},
		{"# Head\npara\n\nnext", 12},
	} {
		if got := blockEnd(tc.in); got != tc.want {
			t.Errorf("blockEnd(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestPreviewRows(t *testing.T) {
	for _, tc := range []struct {
		text string
		cols int
		want int
	}{
		{"", 10, 0},
		{"abc", 10, 0},
		{"abc\n", 10, 1},
		{"0123456789", 10, 0},  // fills the row: the cursor stays on it
		{"0123456789a", 10, 1}, // wraps
		{"0123456789\nx", 10, 1},
		{"a\n\nb", 10, 2},
		{"日本語日本", 4, 2}, // wide runes: 10 columns
	} {
		if got := previewRows(tc.text, tc.cols); got != tc.want {
			t.Errorf("previewRows(%q, %d) = %d, want %d", tc.text, tc.cols, got, tc.want)
		}
	}
}

func TestMarkdownStreamRendersEachBlockOnce(t *testing.T) {
	var out bytes.Buffer
	md := newMDStream(80)
	at := true
	for _, piece := range []string{"Some **bo", "ld** text.\n", "\n```sh\nls -l\n", "```\n", "\n- a\n- b"} {
		md.add(&out, piece, &at)
	}
	md.flush(&out, &at)
	plain := regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`).ReplaceAllString(out.String(), "")
	// The previews are erased with \x1b[J: what follows the last erase of
	// each block is what stays.
	if !strings.Contains(plain, "Some bold text.") || !strings.Contains(plain, "• a") {
		t.Errorf("rendered:\n%q", plain)
	}
	if strings.Count(out.String(), "\x1b[J") != 3 {
		t.Errorf("want 3 previews erased (paragraph, code, list):\n%q", out.String())
	}
}

func TestAlwaysPrefix(t *testing.T) {
	for _, tc := range []struct {
		subject, part, want string
	}{
		{"git push --force origin main", "git push --force origin main", ""},
		{"make build && npm install -g x", "npm install -g x", "make build"},
		{"go test ./... ; rm -rf ~/x", "rm -rf ~/x", "go test"},
		{"rm -rf ~/x", "rm -rf ~/x", ""},
		{"ls", "", ""},
		{"$(evil) x y", "y", ""},
		{"cargo build --release", "", ""}, // danger unknown: exact only
	} {
		got := alwaysPrefix(windows.ApprovalRequest{Kind: "command", Subject: tc.subject, Part: tc.part})
		if got != tc.want {
			t.Errorf("alwaysPrefix(%q, %q) = %q, want %q", tc.subject, tc.part, got, tc.want)
		}
	}
	if got := alwaysPrefix(windows.ApprovalRequest{Kind: "file", Subject: "write /etc/x y z", Part: "z"}); got != "" {
		t.Errorf("a file write got a prefix: %q", got)
	}
}

func TestDiffAndTailAreCut(t *testing.T) {
	diff := "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n"
	lines, more := diffLines(diff, 3)
	if strings.Join(lines, "|") != "@@ -1,3 +1,3 @@| a|-b" || more != 2 {
		t.Errorf("diffLines: %q %d", lines, more)
	}
	tail, before := tailLines("1\n2\n3\n4\n", 2)
	if strings.Join(tail, "|") != "3|4" || before != 2 {
		t.Errorf("tailLines: %q %d", tail, before)
	}
	if plural(1, "line") != "1 line" || plural(2, "line") != "2 lines" {
		t.Error("plural")
	}
}

func TestTranslateKeys(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[1~x\x1b[4~": "\x01x\x05",
		"\x1bOHy\x1bOF":   "\x01y\x05",
		"\x1b[Hz\x1b[F":   "\x01z\x05",
		"\x1b[7~\x1b[8~":  "\x01\x05",
		"a\nb":            "a" + newlineMark + "b",
		"a\x1b\rb":        "a" + newlineMark + "b",
		"plain\r":         "plain\r",
		"\x1b[A":          "\x1b[A",
	} {
		if got := string(translateKeys([]byte(in))); got != want {
			t.Errorf("translateKeys(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPipeEventsShowTheWork(t *testing.T) {
	var w bytes.Buffer
	emit := NewPipe(&w).Event
	params := func(k, v string) map[string]json.RawMessage {
		raw, _ := json.Marshal(v)
		return map[string]json.RawMessage{k: raw}
	}
	run := protocol.Call{ID: "c1", WindowID: "bash_1", ActionID: "run", Params: params("command", "make test")}
	emit(session.ToolCall{Call: run, Title: "bash"})
	emit(session.ToolResult{Call: run, Result: protocol.Result{Status: protocol.StatusOK, Text: "exit 2, 0.1s"},
		Detail: windows.Result{Status: protocol.StatusOK, Output: "1\n2\n3\n4\nFAIL", Failed: true}})
	ed := protocol.Call{ID: "c2", WindowID: "file_1", ActionID: "edit"}
	emit(session.ToolCall{Call: ed, Title: "calc.go"})
	emit(session.ToolResult{Call: ed, Result: protocol.Result{Status: protocol.StatusOK, Text: "replaced 1 occurrence"},
		Detail: windows.Result{Status: protocol.StatusOK, Diff: "--- a/calc.go\n+++ b/calc.go\n@@ -1 +1 @@\n-a\n+b\n"}})
	want := "✗ run make test · failed: exit 2, 0.1s\n    … 2 earlier lines\n    │ 3\n    │ 4\n    │ FAIL\n" +
		"✓ edit calc.go · ok: replaced 1 occurrence\n    @@ -1 +1 @@\n    -a\n    +b\n"
	if w.String() != want {
		t.Errorf("pipe progress:\n%s\nwant\n%s", w.String(), want)
	}
}

func TestUnbracketedPasteBurstIsOneMessage(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		cuts     []int
		typed    string
		sent     string
	}{
		{"typed line", "hello\r", nil, "hello\r", "hello\r"},
		{"burst", "one\rtwo\rthree\r", nil, "[pasted text #1 +3 lines]", "one\ntwo\nthree"},
		{"burst in two reads", "one\rtwo\rthree\rfour", []int{9}, "[pasted text #1 +3 lines][pasted text #2 +2 lines]", "one\ntwo\nthree\nfour"},
		{"keys with escapes", "a\x1b[A\rb", nil, "a\x1b[A\rb", "a\x1b[A\rb"},
	} {
		typed, store := readPasted(t, tc.in, tc.cuts...)
		if typed != tc.typed {
			t.Errorf("%s: typed %q, want %q", tc.name, typed, tc.typed)
		}
		if sent := store.expand(typed); sent != tc.sent {
			t.Errorf("%s: sent %q, want %q", tc.name, sent, tc.sent)
		}
	}
}

func TestMarkdownTallBlockStaysAsStreamed(t *testing.T) {
	var out bytes.Buffer
	md := newMDStream(80)
	at := true
	var code strings.Builder
	code.WriteString("```\n")
	for i := range 30 {
		code.WriteString("line " + strings.Repeat("x", i) + "\n")
	}
	code.WriteString("```\n")
	text := "Intro.\n\n" + code.String() + "\nAfter."
	for i := 0; i < len(text); i += 7 {
		md.add(&out, text[i:min(i+7, len(text))], &at)
	}
	md.flush(&out, &at)
	got := out.String()
	if n := strings.Count(got, "line xxxxxxxxxxxxxxxxxxxxxxxxxxxxx"); n != 1 {
		t.Errorf("the last code line shows %d times", n)
	}
	// Intro and After are rendered (previews erased); the tall block is not.
	if n := strings.Count(got, "\x1b[J"); n != 2 {
		t.Errorf("%d erasures, want 2:\n%q", n, got)
	}
}

func TestMarkdownCodeIsNotWrapped(t *testing.T) {
	md := newMDStream(40)
	long := "echo " + strings.Repeat("a", 60) + " " + strings.Repeat("b", 14)
	plainText := regexp.MustCompile(`\x1b\[[0-9;]*m`)
	for _, block := range []string{"```sh\n" + long + "\n```\n", "Run this:\n```sh\n" + long + "\n```\n"} {
		out := plainText.ReplaceAllString(md.render(block), "")
		if !strings.Contains(out, "\n"+long) && !strings.HasPrefix(out, long) {
			t.Errorf("the code line was wrapped:\n%q", out)
		}
		if strings.Contains(out, long+" ") {
			t.Errorf("the code line is padded:\n%q", out)
		}
	}
	out := plainText.ReplaceAllString(md.render("A paragraph long enough to be wrapped at forty columns, surely.\n"), "")
	if !strings.Contains(out, "\n") {
		t.Errorf("prose is not wrapped: %q", out)
	}
}
