package agent

import (
	"context"
	"strings"
	"sync"

	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/tools/imagefile"
	"github.com/aci-dev/aci/windows"
)

// images.go: pictures in the conversation. A question's pictures and an
// image window's rendering travel as image content parts of their user
// message (the chat API's image_url with a data URL), once: the history
// keeps them, so each request repeats the last byte for byte. A model that
// refuses pictures gets a one-line note in each one's place from then on.

// AttachImages gives the next question pictures (the person's @path, -i, a
// drop on the page, an editor's image block).
func (a *Agent) AttachImages(imgs []imagefile.Image) { a.conv.AttachImages(imgs) }

// AttachImages gives the next question pictures.
func (c *Conversation) AttachImages(imgs []imagefile.Image) {
	c.attached = append(c.attached, imgs...)
}

// images are the entry's pictures: the question's, then each rendering's.
func (e *entry) images() []imagefile.Image {
	out := append([]imagefile.Image(nil), e.Images...)
	for _, el := range e.Elements {
		if el.Image != nil {
			out = append(out, *el.Image)
		}
	}
	return out
}

// contentPart is one part of a message's content in the chat API.
type contentPart struct {
	Type         string        `json:"type"` // text or image_url
	Text         string        `json:"text,omitempty"`
	ImageURL     *imageURL     `json:"image_url,omitempty"`
	CacheControl *cacheControl `json:"cache_control,omitempty"` // breakpoints.go
}

type imageURL struct {
	URL string `json:"url"`
}

// messageContent is a message's content on the wire: wireContent's
// for text alone; with pictures, its parts, a cache mark (breakpoints.go)
// on the last so that the pictures are in the prefix it caches.
func messageContent(m Message, breakpoints, marked bool) any {
	if len(m.Images) == 0 {
		return wireContent(m, breakpoints, marked)
	}
	parts := content(m).([]contentPart)
	if breakpoints && marked {
		parts[len(parts)-1].CacheControl = ephemeral
	}
	return parts
}

// content is a message's content as sent: its text alone when it has no
// pictures, else the text then, per picture, a text part naming it and
// the picture. A picture not kept
// (a transcript over its cap) is a note instead.
func content(m Message) any {
	if len(m.Images) == 0 {
		return m.Content
	}
	parts := []contentPart{{Type: "text", Text: m.Content}}
	for _, im := range m.Images {
		if im.Dropped || len(im.Data) == 0 {
			parts = append(parts, contentPart{Type: "text", Text: "[image " + im.Name + " was not kept in the session's transcript]"})
			continue
		}
		// A short text part names the picture (docs/images.md): the model
		// can refer to shot.png, and the text is the same in every request.
		parts = append(parts, contentPart{Type: "text", Text: "[image " + im.Describe() + "]"},
			contentPart{Type: "image_url", ImageURL: &imageURL{URL: im.DataURL()}})
	}
	return parts
}

// imageGate remembers that the model refused pictures, so that every
// later request carries the notes at once rather than fail first.
type imageGate struct {
	mu      sync.Mutex
	refused bool
}

// noImagesNote is what the model reads in a picture's place.
func noImagesNote(im imagefile.Image) string {
	return "[image " + im.Describe() + " not sent: this model does not take images]"
}

// complete sends msgs through send. When the model refuses pictures it
// says so once through notify and sends them again with a note in each
// picture's place; so do later requests.
func (g *imageGate) complete(ctx context.Context, msgs []Message, onText func(string), send func(context.Context, []Message, func(string)) (Reply, error), notify func(string)) (Reply, error) {
	if !hasImages(msgs) {
		return send(ctx, msgs, onText)
	}
	g.mu.Lock()
	refused := g.refused
	g.mu.Unlock()
	if refused {
		return send(ctx, withoutImages(msgs), onText)
	}
	r, err := send(ctx, msgs, onText)
	if err == nil || Classify(err).Class != ClassNoImages {
		return r, err
	}
	g.mu.Lock()
	g.refused = true
	g.mu.Unlock()
	notify("the model does not take images: each is sent as a note instead")
	return send(ctx, withoutImages(msgs), onText)
}

func hasImages(msgs []Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

// withoutImages is msgs with each picture a line of text at the end of
// its message.
func withoutImages(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = Message{Role: m.Role, Content: m.Content}
		if len(m.Images) == 0 {
			continue
		}
		notes := make([]string, len(m.Images))
		for j, im := range m.Images {
			notes[j] = noImagesNote(im)
		}
		out[i].Content += "\n\n" + strings.Join(notes, "\n")
	}
	return out
}

// transcriptImageCap bounds the picture bytes one transcript file keeps:
// past it a picture is written as a placeholder (its name, format and
// dimensions, no bytes), and a resumed session tells the model so.
const transcriptImageCap = 20 << 20

// capImages replaces in r, a record about to be written, the pictures
// over the transcript's cap by placeholders. r's slices are copied before
// any change: they are the live history's.
func (t *recordLog) capImages(r *Record) {
	keep := func(im imagefile.Image) imagefile.Image {
		if im.Dropped {
			return im
		}
		if t.imageBytes+len(im.Data) > transcriptImageCap {
			im.Data, im.Dropped = nil, true
			return im
		}
		t.imageBytes += len(im.Data)
		return im
	}
	capList := func(list []imagefile.Image) []imagefile.Image {
		if len(list) == 0 {
			return list
		}
		out := make([]imagefile.Image, len(list))
		for i, im := range list {
			out[i] = keep(im)
		}
		return out
	}
	capElements := func(els []element) []element {
		if !elementsHaveImages(els) {
			return els
		}
		out := append([]element(nil), els...)
		for i := range out {
			if out[i].Image != nil {
				im := keep(*out[i].Image)
				out[i].Image = &im
			}
		}
		return out
	}
	r.Images = capList(r.Images)
	r.Elements = capElements(r.Elements)
	if r.History != nil {
		h := append([]entry(nil), r.History...)
		for i := range h {
			h[i].Images = capList(h[i].Images)
			h[i].Elements = capElements(h[i].Elements)
		}
		r.History = h
	}
}

func elementsHaveImages(els []element) bool {
	for _, el := range els {
		if el.Image != nil {
			return true
		}
	}
	return false
}

// picture is the picture el carries: an image window's, when el shows its
// current view whole (not a collapsed or closed rendering).
func (v *views) picture(el element) *imagefile.Image {
	if !el.Full {
		return nil
	}
	for _, w := range v.wm.Windows() {
		if w.ID() != el.ID {
			continue
		}
		p, ok := w.(windows.Picture)
		if !ok {
			return nil
		}
		cur := w.View()
		if prompt.Full(w, cur).Render() != el.Text {
			return nil
		}
		return p.Picture(cur)
	}
	return nil
}
