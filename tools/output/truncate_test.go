package output

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var truncNoteRE = regexp.MustCompile(`\n\[… truncated: (\d+) characters left out, (\d+) of (\d+) shown …\]\n`)

// splitTruncated checks the note of a truncated result and returns head,
// tail and the numbers it states.
func splitTruncated(t *testing.T, out string) (head, tail string, shown, total, left int64) {
	t.Helper()
	loc := truncNoteRE.FindAllStringSubmatchIndex(out, -1)
	if len(loc) != 1 {
		t.Fatalf("want exactly one truncation note, found %d in %q", len(loc), out)
	}
	m := loc[0]
	num := func(k int) int64 {
		n, _ := strconv.ParseInt(out[m[2*k]:m[2*k+1]], 10, 64)
		return n
	}
	head, tail = out[:m[0]], out[m[1]:]
	left, shown, total = num(1), num(2), num(3)
	if got := int64(len(head) + len(tail)); got != shown {
		t.Errorf("note says shown=%d, but head+tail is %d bytes", shown, got)
	}
	if shown+left != total {
		t.Errorf("note: shown %d + left out %d != total %d", shown, left, total)
	}
	note := out[m[0]:m[1]]
	for _, w := range []string{"truncated", "left out"} {
		if !strings.Contains(note, w) {
			t.Errorf("note lacks %q: %q", w, note)
		}
	}
	return head, tail, shown, total, left
}

func truncTestLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %04d\n", i)
	}
	return b.String()
}

func TestTruncateFits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     string
		limit int
	}{
		{"empty", "", 10},
		{"shorter", "hello", 10},
		{"exact", "0123456789", 10},
		{"no limit", strings.Repeat("x", 1000), 0},
		{"negative limit", strings.Repeat("x", 1000), -5},
		{"multibyte exact", "日本語", 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Truncate(tc.s, tc.limit); got != tc.s {
				t.Errorf("Truncate(%q, %d) = %q, want unchanged", tc.s, tc.limit, got)
			}
		})
	}
}

func TestTruncateOver(t *testing.T) {
	lines := truncTestLines(1000) // 10 bytes a line
	for _, tc := range []struct {
		name  string
		s     string
		limit int
	}{
		{"lines", lines, 300},
		{"lines odd limit", lines, 333},
		{"one long line", strings.Repeat("abcdefghij", 1000), 500},
		{"tiny limit", lines, 3},
		{"limit one", "abc", 1},
		{"two bytes over", "0123456789ab", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Truncate(tc.s, tc.limit)
			head, tail, shown, total, _ := splitTruncated(t, out)
			if total != int64(len(tc.s)) {
				t.Errorf("total = %d, want %d", total, len(tc.s))
			}
			if shown > int64(tc.limit) {
				t.Errorf("shown %d > limit %d", shown, tc.limit)
			}
			if !strings.HasPrefix(tc.s, head) || !strings.HasSuffix(tc.s, tail) {
				t.Errorf("head/tail are not prefix/suffix of the input")
			}
		})
	}
}

func TestTruncateLineBoundaries(t *testing.T) {
	s := truncTestLines(1000)
	head, tail, _, _, _ := splitTruncated(t, Truncate(s, 1000))
	// Whole lines on both sides: the head ends right before a newline and
	// the tail starts right after one.
	if !strings.HasSuffix(s[:len(head)+1], "\n") || strings.HasSuffix(head, "\n") {
		t.Errorf("head does not end at a line end: ...%q", head[max(0, len(head)-20):])
	}
	if !strings.HasPrefix(tail, "line ") || !strings.HasSuffix(tail, "line 1000\n") {
		t.Errorf("tail does not start at a line start: %q...", tail[:min(20, len(tail))])
	}
	if len(head) < 400 || len(tail) < 400 {
		t.Errorf("head %d / tail %d bytes: should be about half the limit each", len(head), len(tail))
	}
}

func TestTruncateMultibyte(t *testing.T) {
	inputs := []string{
		strings.Repeat("é", 500),
		strings.Repeat("日本語", 300),
		strings.Repeat("a🙂", 300),
		strings.Repeat("x\n🙂é日", 200),
	}
	for i, s := range inputs {
		for limit := 1; limit < 60; limit++ {
			out := Truncate(s, limit)
			if !utf8.ValidString(out) {
				t.Fatalf("input %d limit %d: invalid UTF-8 %q", i, limit, out)
			}
			_, _, shown, _, _ := splitTruncated(t, out)
			if shown > int64(limit) {
				t.Fatalf("input %d limit %d: shown %d", i, limit, shown)
			}
		}
	}
}

func TestTruncateTotal(t *testing.T) {
	t.Run("middle dropped", func(t *testing.T) {
		first, last := strings.Repeat("f", 100), strings.Repeat("l", 100)+"\n"
		out := TruncateTotal(first+"\nsecond", "tail end\n"+last, 200<<20, 1000)
		head, tail, shown, total, left := splitTruncated(t, out)
		if total != 200<<20 || left != total-shown {
			t.Errorf("total %d left %d shown %d", total, left, shown)
		}
		if head != first || tail != last {
			t.Errorf("seams not cut at line boundaries: head %q tail %q", head, tail)
		}
	})
	t.Run("cut to limit", func(t *testing.T) {
		out := TruncateTotal(strings.Repeat("h", 5000), strings.Repeat("t", 5000), 1e9, 100)
		head, tail, shown, _, _ := splitTruncated(t, out)
		if shown > 100 || len(head) != 50 || len(tail) != 50 {
			t.Errorf("head %d tail %d shown %d", len(head), len(tail), shown)
		}
	})
	t.Run("short head gives budget to tail", func(t *testing.T) {
		out := TruncateTotal("h", strings.Repeat("t", 5000), 1e9, 100)
		_, tail, _, _, _ := splitTruncated(t, out)
		if len(tail) != 99 {
			t.Errorf("tail %d bytes, want 99", len(tail))
		}
	})
	t.Run("nothing dropped", func(t *testing.T) {
		if got := TruncateTotal("ab", "cd", 4, 10); got != "abcd" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("split runes at seams", func(t *testing.T) {
		out := TruncateTotal("ab\xc3", "\xa9cd", 100, 50)
		if !utf8.ValidString(out) {
			t.Errorf("invalid UTF-8: %q", out)
		}
	})
}

func FuzzTruncate(f *testing.F) {
	f.Add("", 0)
	f.Add("hello\nworld\n", 5)
	f.Add(truncTestLines(50), 100)
	f.Add(strings.Repeat("日本🙂é\n", 40), 17)
	f.Add("\xff\xfe\xc3\n\xa9", 2)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		limit %= 2 * (len(s) + 1)
		out := Truncate(s, limit)
		if limit <= 0 || len(s) <= limit {
			if out != s {
				t.Fatalf("fitting input changed")
			}
			return
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("valid input gave invalid output %q", out)
		}
		_, _, shown, total, _ := splitTruncated(t, out)
		if shown > int64(limit) || total != int64(len(s)) {
			t.Fatalf("shown %d limit %d total %d len %d", shown, limit, total, len(s))
		}
	})
}

func BenchmarkTruncate(b *testing.B) {
	s := truncTestLines(100000) // 1 MB
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Truncate(s, DefaultOutputLimit)
	}
}
