package prompt

import (
	"strings"

	"github.com/aci-dev/aci/windows"
)

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;", "\n", "&#10;")

// contentNeutralizer keeps a window's content from closing its own
// element early (a file may well contain "</window>").
var contentNeutralizer = strings.NewReplacer("</window>", "<\\/window>", "</windows>", "<\\/windows>", "<actions>", "<\\actions>")

// WindowsBlock renders the live windows for the last user message of a
// request. It is rebuilt for every request and never stored in history.
func WindowsBlock(ws []windows.Window) string {
	contents := make([]string, len(ws))
	size := 64
	for i, w := range ws {
		contents[i] = strings.TrimRight(w.Content(), "\n")
		size += len(contents[i]) + 512
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString("<windows>\n")
	for i, w := range ws {
		b.WriteString(`<window id="`)
		b.WriteString(attrEscaper.Replace(w.ID()))
		b.WriteString(`" app="`)
		b.WriteString(attrEscaper.Replace(w.App()))
		b.WriteString(`" title="`)
		b.WriteString(attrEscaper.Replace(w.Title()))
		b.WriteString("\">\n")
		if c := contents[i]; c != "" {
			if strings.Contains(c, "</window") || strings.Contains(c, "<actions>") {
				c = contentNeutralizer.Replace(c)
			}
			b.WriteString(c)
			b.WriteString("\n")
		}
		b.WriteString("<actions>\n")
		for _, a := range w.Actions() {
			writeAction(&b, a)
		}
		b.WriteString("</actions>\n</window>\n")
	}
	b.WriteString("</windows>")
	return b.String()
}

func writeAction(b *strings.Builder, a windows.Action) {
	b.WriteString("- ")
	b.WriteString(a.ID)
	b.WriteString("(")
	for i, p := range a.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		if !p.Required {
			b.WriteString("?")
		}
		if p.Type != windows.String {
			b.WriteString(": ")
			b.WriteString(string(p.Type))
		}
	}
	b.WriteString(")")
	if a.Mode == windows.Async {
		b.WriteString(" [async]")
	}
	if a.Desc != "" {
		b.WriteString(": ")
		b.WriteString(a.Desc)
	}
	b.WriteString("\n")
}
