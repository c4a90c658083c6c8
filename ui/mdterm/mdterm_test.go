package mdterm

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		width    int
		want     string // without colours
	}{
		{"emphasis and code", "This is **bold**, *it* and `code`.", 80, "This is bold, it and code."},
		{"headings lose their marks", "# Plan\n\n## Steps\n\ntext", 80, " Plan \n\nSteps\n\ntext"},
		{"wrapped prose", "one two three four five six", 10, "one two\nthree four\nfive six"},
		{"soft breaks reflow", "one\ntwo", 80, "one two"},
		{"hard break", "one  \ntwo", 80, "one\ntwo"},
		{"a long word gets its own line", "a " + strings.Repeat("x", 12) + " b", 10, "a\n" + strings.Repeat("x", 12) + "\nb"},
		{"words in two styles stay whole", "aa **bb**cc dd", 7, "aa bbcc\ndd"},
		{"tight list", "- one\n- two\n  - nested", 80, "• one\n• two\n  • nested"},
		{"ordered list", "3. c\n4. d", 80, "3. c\n4. d"},
		{"list item wraps under its text", "- one two three", 9, "• one two\n  three"},
		{"code is never wrapped", "```sh\necho " + strings.Repeat("a", 30) + "\n\tx\n```", 10, "echo " + strings.Repeat("a", 30) + "\n    x"},
		{"indented code", "    x := 1", 80, "x := 1"},
		{"quote", "> said\n> so", 80, "│ said so"},
		{"link", "see [the docs](https://x.dev/d) and <https://y.dev>", 80, "see the docs https://x.dev/d and https://y.dev"},
		{"escapes and entities", `a \*b\* &amp; c`, 80, "a *b* & c"},
		{"rule", "a\n\n---\n\nb", 5, "a\n\n─────\n\nb"},
		{"table", "| a | long b |\n|---|:-:|\n| 1 | 2 |\n| **x** | `y` |", 80,
			"a │ long b\n──┼───────\n1 │   2\nx │   y"},
		{"prose before a table", "Here:\n| a | b |\n|---|--:|\n| 1 | 22 |", 80, "Here:\n\na │  b\n──┼───\n1 │ 22"},
		{"escaped pipe in a cell", "| a | b |\n|---|---|\n| x \\| y | z |", 80, "a     │ b\n──────┼──\nx | y │ z"},
		{"no table without a delimiter row", "| a | b |\n| c | d |", 80, "| a | b | | c | d |"},
		// CommonMark's rules where a terminal shows the difference.
		{"setext headings", "Title\n=====\n\nSub\n---", 80, " Title \n\nSub"},
		{"nested emphasis", "***both*** and **b *i* b**", 80, "both and b i b"},
		{"underscores inside words", "snake_case_word and _em_", 80, "snake_case_word and em"},
		{"spaced stars are text", "a * b * c and 2*3*4", 80, "a * b * c and 234"},
		{"unclosed emphasis", "*unclosed and **also", 80, "*unclosed and **also"},
		{"loose list", "- one\n\n- two", 80, "• one\n\n• two"},
		{"ordered with )", "1) a\n2) b", 80, "1) a\n2) b"},
		{"tilde fence", "~~~\ncode\n~~~", 80, "code"},
		{"html block kept as written", "<div>\n*not em*\n</div>", 80, "<div>\n*not em*\n</div>"},
		{"lazy quote line", "> quote\nlazy", 80, "│ quote lazy"},
		{"lazy underline is text", "- a\nb\n===", 80, "• a b ==="},
		{"entities", "&#65; &#x42; &copy; &nosuch;", 80, "A B © &nosuch;"},
		{"image and angle destination", "![alt](i.png \"t\") [l](<a b>)", 80, "alt i.png l a b"},
		{"double backtick code", "``a ` b``", 80, "a ` b"},
		{"backslash hard break", "one\\\ntwo", 80, "one\ntwo"},
		{"closing hashes", "# Head #", 80, " Head "},
		{"a list interrupts prose", "para\n- list interrupts", 80, "para\n\n• list interrupts"},
		{"only 1. interrupts prose", "para\n2. does not", 80, "para 2. does not"},
		{"reference links", "[r][x] and [x]\n\n[x]: https://r.example", 80, "r https://r.example and x https://r.example\n\n[x]: https://r.example"},
		{"indented code needs a blank line before", "text\n    not code\n\n    code", 80, "text not code\n\ncode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := stripSGR(Render(tc.in, tc.width))
			if got != tc.want {
				t.Errorf("Render(%q, %d):\n got %q\nwant %q", tc.in, tc.width, got, tc.want)
			}
		})
	}
}

func TestRenderStyles(t *testing.T) {
	out := Render("**b** `c`", 80)
	for _, want := range []string{"\x1b[1;" + sgrText + "mb\x1b[0m", "\x1b[" + sgrCode + "mc\x1b[0m"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q lacks %q", out, want)
		}
	}
}

// FuzzRender: any text renders without panicking, and every line of prose
// stays within the width unless one word is wider.
func FuzzRender(f *testing.F) {
	f.Add("# t\n\n- a\n  1. b\n\n> q\n\n```\nc\n```\n\n| a | b |\n|---|---|\n| 1 |", 20)
	f.Add("[x](<y>) ![i](j) <b>html</b>\n\n<div>\nz\n</div>", 5)
	f.Fuzz(func(t *testing.T, src string, width int) {
		Render(src, width%200)
	})
}
