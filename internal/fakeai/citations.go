package fakeai

import (
	"strings"
	"unicode/utf8"
)

// Citation is one page a search model's answer cites: Mark is the text of
// Content the citation spans (a markdown link, as OpenAI's search models
// write them), found in Content to give start_index and end_index.
type Citation struct {
	URL, Title, Mark string
}

// annotations renders citations as Chat Completions' url_citation
// annotations, indexes in characters; a Mark not in content spans nothing
// at the end.
func annotations(content string, cs []Citation) []any {
	out := make([]any, 0, len(cs))
	from := 0
	for _, c := range cs {
		start, end := utf8.RuneCountInString(content), utf8.RuneCountInString(content)
		if i := strings.Index(content[from:], c.Mark); c.Mark != "" && i >= 0 {
			start = utf8.RuneCountInString(content[:from+i])
			end = start + utf8.RuneCountInString(c.Mark)
			from += i + len(c.Mark)
		}
		out = append(out, map[string]any{"type": "url_citation", "url_citation": map[string]any{
			"start_index": start, "end_index": end, "url": c.URL, "title": c.Title}})
	}
	return out
}
