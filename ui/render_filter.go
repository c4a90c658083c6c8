package ui

import "strings"

const (
	toolOpenTag  = "<tool_call>"
	toolCloseTag = "</tool_call>"
)

// streamFilter removes <tool_call> blocks from streamed model text, so the
// person sees the prose and one compact line per call instead of raw JSON.
// A tag may arrive split across deltas: whatever could still be the start
// of a tag is held back until the next delta decides.
type streamFilter struct {
	held    string // a possible tag prefix at the end of the last delta
	inBlock bool   // inside <tool_call> … </tool_call>
}

// Write takes the next delta and returns the text to show now.
func (f *streamFilter) Write(delta string) string {
	data := f.held + delta
	f.held = ""
	var out strings.Builder
	for data != "" {
		tag := toolOpenTag
		if f.inBlock {
			tag = toolCloseTag
		}
		if i := strings.Index(data, tag); i >= 0 {
			if !f.inBlock {
				out.WriteString(data[:i])
			}
			data = data[i+len(tag):]
			f.inBlock = !f.inBlock
			continue
		}
		k := partialSuffix(data, tag)
		if !f.inBlock {
			out.WriteString(data[:len(data)-k])
		}
		f.held = data[len(data)-k:]
		break
	}
	return out.String()
}

// InBlock reports whether the stream is inside a tool call.
func (f *streamFilter) InBlock() bool { return f.inBlock }

// Flush ends the reply: held text that never became a tag is shown, an
// unclosed block stays hidden (the protocol runs it anyway).
func (f *streamFilter) Flush() string {
	rest := f.held
	if f.inBlock {
		rest = ""
	}
	*f = streamFilter{}
	return rest
}

// partialSuffix returns the length of the longest proper prefix of tag that
// s ends with.
func partialSuffix(s, tag string) int {
	for k := min(len(s), len(tag)-1); k > 0; k-- {
		if strings.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}

// sanitize drops control characters (but newline and tab) from text that
// the model or a tool wrote, so it cannot move the cursor, recolour the
// terminal or set its title. ESC alone is removed: what followed it shows as
// harmless text.
func sanitize(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !isControl(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f: // C1 controls, e.g. CSI as one code point
		return true
	}
	return false
}
