package output

import (
	"strings"
	"testing"
)

func TestStripANSI(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "hello\n\tworld\n", "hello\n\tworld\n"},
		{"colour", "\x1b[31mred\x1b[0m and \x1b[1;32mgreen\x1b[m", "red and green"},
		{"cursor", "a\x1b[2Ab\x1b[10;20Hc\x1b[?25l", "abc"},
		{"osc bel", "\x1b]0;title\x07text", "text"},
		{"osc st", "\x1b]8;;https://x.y/\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"osc cut by newline", "\x1b]0;no end\nnext", "\nnext"},
		{"dcs", "\x1bPq#0;2;0;0;0\x1b\\after", "after"},
		{"charset", "\x1b(Bplain\x1b)0", "plain"},
		{"two byte", "\x1b7saved\x1b8\x1b=", "saved"},
		{"truncated csi", "text\x1b[31", "text"},
		{"lone esc", "a\x1b", "a"},
		{"esc before newline", "a\x1b\nb", "a\nb"},
		{"malformed csi", "a\x1b[12\nb", "a\nb"},
		{"progress", "10%\r20%\r100%\ndone\n", "100%\ndone\n"},
		{"progress trailing cr", "10%\r20%\r", "20%"},
		{"crlf", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"cr erase line", "working...\r\x1b[Kdone\n", "done\n"},
		{"erase whole line", "junk\x1b[2Kok", "ok"},
		{"backspace", "abx\bc\n", "abc\n"},
		{"backspace multibyte", "aé\bb", "ab"},
		{"backspace at line start", "a\n\bb", "a\nb"},
		{"overstrike bold", "B\bBo\bol\bld\bd", "Bold"},
		{"control chars", "a\x00b\x07c\x7fd\x0ce", "abcde"},
		{"utf8 kept", "日本\x1b[1m語\x1b[0m🙂", "日本語🙂"},
		{"bracket text kept", "[31m not an escape", "[31m not an escape"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StripANSI(tc.in); got != tc.want {
				t.Errorf("StripANSI(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestStripANSINoAllocWhenClean(t *testing.T) {
	s := strings.Repeat("clean line\twith tab\n", 100)
	if n := testing.AllocsPerRun(10, func() { StripANSI(s) }); n != 0 {
		t.Errorf("%v allocations for clean input", n)
	}
}

func BenchmarkStripANSI(b *testing.B) {
	s := strings.Repeat("\x1b[32mok\x1b[0m   pkg/some/thing\t0.012s\r\x1b[K50%\n", 20000)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		StripANSI(s)
	}
}
