package session

import (
	"fmt"
	"html"
	"strings"
)

// markdown is the document as Markdown: words as they are (the model
// writes Markdown), every output and diff in a fence longer than any run
// of backticks inside it, so no output can close its block early.
func (d exportDoc) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# aci session %s\n\n", d.id)
	fmt.Fprintf(&b, "- model: %s\n", d.model)
	if d.parent != "" {
		fmt.Fprintf(&b, "- branched from: %s\n", d.parent)
	}
	cost, known, u := d.total()
	fmt.Fprintf(&b, "- cost: %s\n", costLine(cost, known, u))
	for _, t := range d.turns {
		fmt.Fprintf(&b, "\n## %d. %s\n\n", t.n, firstLine(t.question))
		b.WriteString(quote(t.question))
		for _, it := range t.items {
			switch it.kind {
			case "text":
				b.WriteString("\n" + strings.TrimSpace(it.text) + "\n")
			case "steer":
				b.WriteString("\n**Added while it ran:**\n\n" + quote(it.text))
			case "decision":
				fmt.Fprintf(&b, "\n**Decision:** %s\n", oneLine(it.text))
			case "action":
				fmt.Fprintf(&b, "\n**Action:** `%s`", strings.ReplaceAll(oneLine(it.text), "`", "'"))
				if w := it.statusWords(); w != "" {
					fmt.Fprintf(&b, " — %s", w)
				}
				b.WriteString("\n")
				if it.output != "" {
					lang := ""
					if isDiff(it.output) {
						lang = "diff"
					}
					b.WriteString("\n" + fenced(it.output, lang))
				}
			}
		}
		switch {
		case t.failed != "":
			fmt.Fprintf(&b, "\n**Failed:** %s\n", oneLine(t.failed))
		case t.answer != "":
			b.WriteString("\n**Answer:**\n\n" + strings.TrimSpace(t.answer) + "\n")
		}
		if t.cost != nil || t.usage != (Usage{}) {
			fmt.Fprintf(&b, "\n_Cost: %s_\n", costLine(deref(t.cost), t.cost != nil, t.usage))
		}
	}
	return b.String()
}

// html is the document as one page with no script: every text the session
// holds is escaped, so an answer holding <script> is shown, not run.
func (d exportDoc) html() string {
	var b strings.Builder
	e := html.EscapeString
	b.WriteString("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n")
	fmt.Fprintf(&b, "<title>aci session %s</title>\n<style>%s</style></head><body>\n", e(d.id), exportCSS)
	fmt.Fprintf(&b, "<h1>aci session %s</h1>\n<ul class=\"meta\"><li>model: %s</li>", e(d.id), e(d.model))
	if d.parent != "" {
		fmt.Fprintf(&b, "<li>branched from: %s</li>", e(d.parent))
	}
	cost, known, u := d.total()
	fmt.Fprintf(&b, "<li>cost: %s</li></ul>\n", e(costLine(cost, known, u)))
	for _, t := range d.turns {
		fmt.Fprintf(&b, "<section class=\"turn\"><h2>%d. %s</h2>\n<pre class=\"question\">%s</pre>\n", t.n, e(firstLine(t.question)), e(t.question))
		for _, it := range t.items {
			switch it.kind {
			case "text":
				fmt.Fprintf(&b, "<div class=\"words\">%s</div>\n", e(strings.TrimSpace(it.text)))
			case "steer":
				fmt.Fprintf(&b, "<p class=\"steer\"><b>Added while it ran:</b></p><pre class=\"question\">%s</pre>\n", e(it.text))
			case "decision":
				fmt.Fprintf(&b, "<p class=\"decision\"><b>Decision:</b> %s</p>\n", e(it.text))
			case "action":
				fmt.Fprintf(&b, "<div class=\"action\"><p><b>Action:</b> <code>%s</code> <span class=\"status\">%s</span></p>", e(it.text), e(it.statusWords()))
				if it.output != "" {
					b.WriteString(htmlOutput(it.output))
				}
				b.WriteString("</div>\n")
			}
		}
		switch {
		case t.failed != "":
			fmt.Fprintf(&b, "<p class=\"failed\"><b>Failed:</b> %s</p>\n", e(t.failed))
		case t.answer != "":
			fmt.Fprintf(&b, "<p><b>Answer:</b></p><div class=\"words answer\">%s</div>\n", e(strings.TrimSpace(t.answer)))
		}
		if t.cost != nil || t.usage != (Usage{}) {
			fmt.Fprintf(&b, "<p class=\"cost\">Cost: %s</p>\n", e(costLine(deref(t.cost), t.cost != nil, t.usage)))
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// htmlOutput is an action's output; a diff's lines are coloured by kind.
func htmlOutput(out string) string {
	if !isDiff(out) {
		return "<pre class=\"output\">" + html.EscapeString(out) + "</pre>"
	}
	var b strings.Builder
	b.WriteString("<pre class=\"output diff\">")
	for _, line := range strings.SplitAfter(out, "\n") {
		class := ""
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			class = "add"
		case strings.HasPrefix(line, "-"):
			class = "del"
		case strings.HasPrefix(line, "@@"):
			class = "hunk"
		}
		if class == "" {
			b.WriteString(html.EscapeString(line))
			continue
		}
		fmt.Fprintf(&b, "<span class=\"%s\">%s</span>", class, html.EscapeString(line))
	}
	b.WriteString("</pre>")
	return b.String()
}

const exportCSS = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
pre{background:#f6f6f6;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
.words{white-space:pre-wrap}.question{background:#eef4ff}.turn{border-top:1px solid #ddd;margin-top:1.5rem}
.add{color:#116611;background:#e8f7e8}.del{color:#991111;background:#fbe9e9}.hunk{color:#555}
.status,.cost,.meta{color:#666}.failed{color:#991111}`

// fenced is text in a code fence longer than any backtick run inside it.
func fenced(text, lang string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + fence + "\n"
}

// quote is text as a Markdown block quote.
func quote(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}
