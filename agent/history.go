package agent

import (
	"strings"

	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/tools/imagefile"
)

// entry is one message of the history: its text, then the window
// renderings that follow it in a <windows> block. Renderings live in the
// history, so each request repeats the previous one byte for byte and
// provider prompt caches hit; a rebase drops the superseded ones.
type entry struct {
	Role     string    `json:"role"`
	Text     string    `json:"text"`
	Elements []element `json:"elements,omitempty"`
	// Images are the pictures the person attached to the question.
	Images  []imagefile.Image `json:"images,omitempty"`
	content string            // the message content, built once the entry is sent
}

// element is one rendering of a window inside an entry.
type element struct {
	ID   string `json:"id"`
	Text string `json:"text,omitempty"` // the <window> element
	// Same marks, in a transcript only, an element whose text was written
	// before for its window: the Same-th most recent (transcript_refs.go).
	Same int  `json:"same,omitempty"`
	Full bool `json:"full,omitempty"`
	// Image is the picture an image window's rendering carries.
	Image *imagefile.Image `json:"image,omitempty"`
}

// message is the entry as the model reads it.
func (e *entry) message() Message {
	m := e.text()
	m.Images = e.images()
	return m
}

// text is the entry's message without its pictures.
func (e *entry) text() Message {
	if e.content != "" {
		return Message{Role: e.Role, Content: e.content}
	}
	if len(e.Elements) == 0 {
		return Message{Role: e.Role, Content: e.Text}
	}
	parts := make([]string, len(e.Elements))
	for i, el := range e.Elements {
		parts[i] = el.Text
	}
	block := prompt.WindowsBlock(parts)
	if strings.TrimSpace(e.Text) == "" {
		return Message{Role: e.Role, Content: block}
	}
	return Message{Role: e.Role, Content: e.Text + "\n\n" + block}
}

// freeze caches the content of an entry that has been sent: from then on
// it never changes (until a rebase rebuilds it).
func (e *entry) freeze() {
	if e.content == "" {
		e.content = e.text().Content
	}
}

// size is the bytes the entry adds to a request.
func (e *entry) size() int { return len(e.text().Content) + len(e.Role) + 8 }
