package ui

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestJoinerContinuesLinesEndingInBackslash(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{"one line"}, "one line"},
		{[]string{`first \`, "second"}, "first \nsecond"},
		{[]string{`a\`, `b\`, "c"}, "a\nb\nc"},
		{[]string{`\`, ""}, "\n"},
		{[]string{`path C:\dir\ ok`}, `path C:\dir\ ok`},
	} {
		var j joiner
		for i, l := range tc.lines {
			msg, done := j.add(l)
			last := i == len(tc.lines)-1
			if done != last {
				t.Fatalf("%q: line %d done=%v", tc.lines, i, done)
			}
			if !last && !j.pending() {
				t.Fatalf("%q: not pending after line %d", tc.lines, i)
			}
			if last && msg != tc.want {
				t.Errorf("%q: got %q, want %q", tc.lines, msg, tc.want)
			}
		}
		if j.pending() {
			t.Errorf("%q: still pending after the message", tc.lines)
		}
	}
}

// readPasted runs input through a pasteReader delivering it in chunks cut
// at the given offsets.
func readPasted(t *testing.T, input string, cuts ...int) (string, *pasteStore) {
	t.Helper()
	var chunks []io.Reader
	prev := 0
	for _, c := range append(cuts, len(input)) {
		chunks = append(chunks, strings.NewReader(input[prev:c]))
		prev = c
	}
	store := &pasteStore{}
	out, err := io.ReadAll(&pasteReader{r: &chunkReader{chunks: chunks}, store: store})
	if err != nil {
		t.Fatal(err)
	}
	return string(out), store
}

// chunkReader returns each reader's bytes in a separate Read.
type chunkReader struct{ chunks []io.Reader }

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.chunks) > 0 {
		n, err := c.chunks[0].Read(p)
		if err == io.EOF {
			c.chunks = c.chunks[1:]
			if n == 0 {
				continue
			}
		}
		return n, nil
	}
	return 0, io.EOF
}

func TestPasteReader(t *testing.T) {
	for _, tc := range []struct {
		name, in, typed, sent string
	}{
		{"keys only", "ab\x1b[Acd\r", "ab\x1b[Acd\r", "ab\x1b[Acd\r"},
		{"short paste", "x\x1b[200~hello\x1b[201~y", "xhelloy", "xhelloy"},
		{"paste with its newline", "\x1b[200~ls -la\n\x1b[201~", "ls -la", "ls -la"},
		{"many lines", "see \x1b[200~a\rb\r\nc\n\x1b[201~!\r", "see [pasted text #1 +3 lines]!\r", "see a\nb\nc!\r"},
		{"tabs", "\x1b[200~a\tb\x1b[201~", "[pasted text #1, 3 chars]", "a\tb"},
		{"two pastes", "\x1b[200~1\n2\x1b[201~ \x1b[200~3\n4\x1b[201~", "[pasted text #1 +2 lines] [pasted text #2 +2 lines]", "1\n2 3\n4"},
		{"empty paste", "a\x1b[200~\x1b[201~b", "ab", "ab"},
	} {
		for cut := 0; cut <= len(tc.in); cut++ {
			typed, store := readPasted(t, tc.in, cut)
			if typed != tc.typed {
				t.Fatalf("%s cut at %d: typed %q, want %q", tc.name, cut, typed, tc.typed)
			}
			if sent := store.expand(typed); sent != tc.sent {
				t.Fatalf("%s cut at %d: sent %q, want %q", tc.name, cut, sent, tc.sent)
			}
		}
	}
}

func TestPasteLongLineBecomesPlaceholder(t *testing.T) {
	long := strings.Repeat("x", inlinePasteMax+1)
	typed, store := readPasted(t, pasteStart+long+pasteEnd)
	if want := fmt.Sprintf("[pasted text #1, %d chars]", len(long)); typed != want {
		t.Errorf("typed %q, want %q", typed, want)
	}
	if store.expand(typed) != long {
		t.Error("placeholder not expanded")
	}
	if store.expand(typed) != typed {
		t.Error("expand did not forget the paste")
	}
}

func TestParseSlash(t *testing.T) {
	for in, want := range map[string]string{
		"/help":               "help|",
		"  /reset  ":          "reset|",
		"/compact keep tests": "compact|keep tests",
		"/EXIT":               "exit|",
		"/etc/hosts is wrong": "",
		"/":                   "",
		"/ help":              "",
		"hello /help":         "",
	} {
		name, arg, ok := parseSlash(in)
		got := ""
		if ok {
			got = name + "|" + arg
		}
		if got != want {
			t.Errorf("parseSlash(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSlashCompleter(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	got, n := completer{}.Do([]rune("/re"), 3)
	if n != 3 || len(got) != 3 || string(got[0]) != "set " || string(got[1]) != "view " || string(got[2]) != "wind " { // /reset, /review, /rewind
		t.Errorf("/re: %q, %d", got, n)
	}
	if got, _ := (completer{}).Do([]rune("hello /re"), 9); got != nil {
		t.Errorf("completed inside a message: %q", got)
	}
	all, _ := completer{}.Do([]rune("/"), 1)
	if len(all) != len(allCommandNames("")) {
		t.Errorf("/ offers %d of %d commands", len(all), len(allCommandNames("")))
	}
}
